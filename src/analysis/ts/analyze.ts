/** TypeScript reconciler analysis: placeholder until the TS rules land. */
import type { Finding } from '../diagnostics';

export function analyzeTypeScript(_path: string, _text: string): Finding[] {
  return [];
}
