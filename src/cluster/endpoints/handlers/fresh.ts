/**
 * A read that must wait for the store to reach a resourceVersion (watchcache.ts), held for as
 * long as the request lives: the wait ends early when the client goes away or the server closes.
 */
import { waitUntilFresh } from '../../storage/watchcache';
import type { RequestScope } from './scope';

/**
 * Resolves true once the store has reached `rv` or the watch cache's wait is over (the read then
 * answers, or fails as too new), false when the client went away or `closers` (the server's
 * shutdown hooks) fired first — then there is nothing to answer.
 */
export function untilFresh(
  s: RequestScope,
  rv: number,
  closers?: Set<() => void>,
): Promise<boolean> {
  const { cluster, res } = s;
  return new Promise<boolean>((resolve) => {
    const settle = (fresh: boolean) => {
      cancel();
      closers?.delete(close);
      res.off('close', gone);
      resolve(fresh);
    };
    const gone = () => settle(false);
    const close = () => {
      settle(false);
      res.end();
    };
    const cancel = waitUntilFresh(cluster.store, cluster.clock, rv, () => settle(true));
    closers?.add(close);
    res.once('close', gone);
  });
}
