/**
 * A write served with its admission webhooks and policies: the cluster's synchronous verb run through a
 * WebhookSession (admission/webhook/session.ts) until every webhook it reaches has answered, each
 * run from a fresh copy of the request's input. With no webhook configuration stored, the verb
 * runs once on the handed-over input, as before. The webhooks' warnings go out as Warning
 * headers, their audit annotations and calls into the request's audit record. A custom resource
 * whose CRD converts by webhook is written the same way (its conversions are webhook calls too).
 */
import { clone } from '../../apimachinery/clone';
import { MUTATING, VALIDATING } from '../../admission/webhook/config';
import { WebhookSession, runWithSession } from '../../admission/webhook/session';
import { MUTATING_POLICY, VALIDATING_POLICY } from '../../admission/policy/source';
import { convertsByWebhook } from '../../apiextensions/conversion';
import type { RequestScope } from './scope';
import type { UserInfo } from '../../auth/user';

/** Who an AdmissionReview names when the scope has no authenticated user (in-process tests). */
export const ANONYMOUS: UserInfo = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

/**
 * Whether a write may call a webhook or be judged by an admission policy (whose warnings, audit
 * annotations and `request.userInfo` come from the session): admission configurations or policy
 * bindings stored, or a CRD converting by webhook.
 */
function anyStored(s: RequestScope): boolean {
  if (convertsByWebhook(s.t.conversion)) return true;
  for (const type of [MUTATING, VALIDATING, VALIDATING_POLICY.binding, MUTATING_POLICY.binding])
    for (const _ of s.cluster.scan(type)) return true;
  return false;
}

/** The operation's options as the AdmissionReview carries them (meta.k8s.io/v1). */
export function reviewOptions(
  s: RequestScope,
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const fieldManager = s.q.get('fieldManager');
  return {
    kind,
    apiVersion: 'meta.k8s.io/v1',
    ...(s.dryRun ? { dryRun: ['All'] } : {}),
    ...(fieldManager && kind !== 'DeleteOptions' ? { fieldManager } : {}),
    ...(s.fieldValidation && kind !== 'DeleteOptions'
      ? { fieldValidation: s.fieldValidation }
      : {}),
    ...extra,
  };
}

/**
 * Runs `run` with the request's webhooks; `fresh(x)` is what a run must use of an input it
 * consumes (a copy when the write may run more than once).
 */
export async function admittedWrite<T>(
  s: RequestScope,
  options: Record<string, unknown>,
  run: (fresh: <V>(input: V) => V) => T,
): Promise<T> {
  if (!anyStored(s)) return run((x) => x);
  const session = new WebhookSession({ user: s.user ?? ANONYMOUS, options });
  const base = s.warnings.length;
  try {
    const out = await runWithSession(session, () => {
      s.warnings.length = base;
      return s.cluster.withSession(session, () => run((x) => clone(x as never) as typeof x));
    });
    // A custom resource's answer is at its storage version until it is converted (crconverter.ts).
    return await s.cluster.crConverter.convertAnswer(s.t, out);
  } finally {
    s.warnings.push(...session.warnings);
    s.record?.admitted(session.annotations, session.calls);
  }
}
