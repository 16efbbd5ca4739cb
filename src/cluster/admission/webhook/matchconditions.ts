/**
 * A webhook's matchConditions (k8s.io/apiserver admission/plugin/webhook/matchconditions): CEL
 * expressions over `object`, `oldObject` and `request` (the AdmissionRequest the webhook would be
 * sent), on the Kubernetes CEL environment already here (cellibrary.ts). All true: the webhook is
 * called; one false: it is skipped; an error with no false: the failurePolicy decides — Fail
 * refuses the request (the dispatcher's 403), Ignore skips the webhook. `authorizer` is not
 * declared: the fake authorizes nothing.
 */
import { isCelError, parse, plan } from '@bufbuild/cel';
import { kubernetesCelEnv } from '../../cel/cellibrary';
import { toCel } from '../../apiextensions/celvalidation';
import type { MatchCondition } from './config';

type Program = (bindings: Record<string, unknown>) => unknown;

/** Compiled programs by expression: configurations are read on every write. */
const compiled = new Map<string, Program | Error>();

function compile(expression: string): Program | Error {
  let p = compiled.get(expression);
  if (!p) {
    try {
      p = plan(kubernetesCelEnv(), parse(expression)) as Program;
    } catch (err) {
      p = new Error(`compilation error: ${err instanceof Error ? err.message : String(err)}`);
    }
    compiled.set(expression, p);
  }
  return p;
}

export type MatchResult = { matches: true } | { matches: false } | { error: string };

export function evaluateMatchConditions(
  conditions: MatchCondition[],
  failurePolicy: 'Fail' | 'Ignore',
  vars: { object: unknown; oldObject: unknown; request: unknown },
): MatchResult {
  if (!conditions.length) return { matches: true };
  const bindings = {
    object: toCel(vars.object, undefined),
    oldObject: toCel(vars.oldObject, undefined),
    request: toCel(vars.request, undefined),
  };
  const errors: string[] = [];
  for (const c of conditions) {
    const program = compile(c.expression);
    if (program instanceof Error) {
      errors.push(program.message);
      continue;
    }
    let out: unknown;
    try {
      out = program(bindings);
    } catch (err) {
      out = err;
    }
    if (out === false) return { matches: false };
    if (out === true) continue;
    const detail = isCelError(out)
      ? out.message
      : out instanceof Error
        ? out.message
        : `no such overload`;
    errors.push(`expression '${c.expression}' resulted in error: ${detail}`);
  }
  if (!errors.length) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  // utilerrors.NewAggregate: one error as itself, more as `[a, b]`.
  return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}
