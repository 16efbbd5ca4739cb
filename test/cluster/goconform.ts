/**
 * The judge of the protobuf tests: tools/apigen's `conform`, which decodes each object with Go's
 * json.Unmarshal into its k8s.io/api type and answers k8s' own generated Marshal of it and
 * json.Marshal of it. Undefined when Go is not installed (the caller skips, saying so).
 */
import { execFileSync } from 'node:child_process';
import { buildApigen } from '../../scripts/apigen/generate.mjs';

export interface GoAnswer {
  /** The object's protobuf, without the envelope. */
  proto?: Buffer;
  json?: Record<string, unknown>;
  error?: string;
}

export function goAvailable(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs one of the project's Go programs: one JSON object a line in, one a line out. */
export function goJsonLines<T>(binary: string, command: string, objects: readonly unknown[]): T[] {
  const out = execFileSync(binary, [command], {
    input: objects.map((o) => JSON.stringify(o)).join('\n') + '\n',
    maxBuffer: 512 << 20,
    encoding: 'utf8',
  });
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

export function goConform(objects: readonly unknown[]): GoAnswer[] {
  return goJsonLines<{ proto?: string; json?: Record<string, unknown>; error?: string }>(
    buildApigen(),
    'conform',
    objects,
  ).map((a) => ({
    ...a,
    proto: a.proto === undefined ? undefined : Buffer.from(a.proto, 'base64'),
  }));
}
