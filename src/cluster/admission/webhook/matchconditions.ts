/**
 * matchConditions (k8s.io/apiserver admission/plugin/webhook/matchconditions), a webhook's or an
 * admission policy's: CEL expressions over `object`, `oldObject` and `request` (the
 * AdmissionRequest the webhook would be sent) — and a policy's `params`, `namespaceObject` and
 * `variables` — on the Kubernetes CEL environment (cellibrary.ts). All true: matched; one false:
 * skipped; an error with no false: the failurePolicy decides — Fail refuses the request (the
 * caller words it), Ignore skips. `authorizer` is not declared: the fake authorizes nothing.
 */
import { compile, evaluate, evaluationFailure } from '../celexpression';
import type { MatchCondition } from './config';

export type MatchResult = { matches: true } | { matches: false } | { error: string };

export function evaluateMatchConditions(
  conditions: MatchCondition[],
  failurePolicy: 'Fail' | 'Ignore',
  bindings: Record<string, unknown>,
): MatchResult {
  if (!conditions.length) return { matches: true };
  const errors: string[] = [];
  for (const c of conditions) {
    const out = evaluate(compile(c.expression), bindings);
    if (out === false) return { matches: false };
    if (out === true) continue;
    errors.push(
      evaluationFailure(c.expression, out instanceof Error ? out : new Error('no such overload')),
    );
  }
  if (!errors.length) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  // utilerrors.NewAggregate: one error as itself, more as `[a, b]`.
  return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}
