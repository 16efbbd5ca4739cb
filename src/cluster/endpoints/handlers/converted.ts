/**
 * A read of a custom resource whose CRD converts by webhook: the cluster's synchronous read run
 * through a WebhookSession that gathers the conversions it needs (one per object stored at another
 * version), makes them together and runs the read again with the answers
 * (apiextensions/crconverter.ts). Any other read runs once, as before. The calls go into the
 * request's audit record.
 */
import { convertsByWebhook } from '../../apiextensions/conversion';
import { WebhookSession, runWithSession } from '../../admission/webhook/session';
import type { RequestScope } from './scope';
import { ANONYMOUS } from './admitted';

export function convertedRead<T>(s: RequestScope, read: () => T): T | Promise<T> {
  if (!convertsByWebhook(s.t.conversion)) return read();
  const session = new WebhookSession({ user: s.user ?? ANONYMOUS, read: true });
  return runWithSession(session, () => s.cluster.withSession(session, read)).finally(() =>
    s.record?.admitted(session.annotations, session.calls),
  );
}

/** Runs `then` on a value that may still be coming. */
export function after<T>(
  v: T | Promise<T>,
  then: (v: T) => void | Promise<void>,
): void | Promise<void> {
  return v instanceof Promise ? v.then(then) : then(v);
}
