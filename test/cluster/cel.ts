/** Evaluates a CEL expression in the CRD rules' environment: its value, or its error's text. */
import { isCelError, parse, plan } from '@bufbuild/cel';
import { kubernetesCelEnv } from '../../src/cluster/cellibrary';

export function evalCel(expr: string, bindings: Record<string, unknown> = {}): unknown {
  const out = (plan(kubernetesCelEnv(), parse(expr)) as (b: object) => unknown)(bindings);
  return isCelError(out) ? { error: out.message } : out;
}
