/** Evaluates a CEL expression in the CRD rules' environment: its value, or its error's text. */
import assert from 'node:assert/strict';
import { isCelError, parse, plan } from '@bufbuild/cel';
import { kubernetesCelEnv } from '../../src/cluster/cel/cellibrary';

export function evalCel(expr: string, bindings: Record<string, unknown> = {}): unknown {
  const out = (plan(kubernetesCelEnv(), parse(expr)) as (b: object) => unknown)(bindings);
  return isCelError(out) ? { error: out.message } : out;
}

/** Asserts that every expression evaluates to true (each names itself when it does not). */
export function assertAllTrue(exprs: string[]): void {
  for (const e of exprs) assert.equal(evalCel(e), true, e);
}

/** Asserts the error each expression fails with, given as [expression, error] pairs. */
export function assertErrors(cases: [string, string][]): void {
  for (const [e, error] of cases) assert.deepEqual(evalCel(e), { error }, e);
}
