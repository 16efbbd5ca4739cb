/**
 * The wait kube-apiserver's watch cache makes before it serves a read "not older than" a
 * resourceVersion it has not seen yet (k8s.io/apiserver pkg/storage/cacher, watch_cache.go
 * waitUntilFreshLocked): it blocks until it has seen the version, or for at most `blockTimeout`,
 * and then the read fails with "Too large resource version" (504, cause ResourceVersionTooLarge,
 * retry after `resourceVersionTooHighRetrySeconds`). A client that keeps a resourceVersion from
 * another server (a `serve` restarted without `--state`) so gets an error it relists on, as
 * client-go's reflector does, instead of a silent answer from the past.
 *
 * The HTTP layer waits (it has the time); the cluster's reads then fail at once if the store is
 * still behind (Cluster.listPage, Cluster.watch).
 */
import type { Clock } from '../../util/clock';
import type { ListOptions } from '../apimachinery/types';
import type { Store } from './store';

/** watch_cache.go blockTimeout. */
export const BLOCK_TIMEOUT_MS = 3000;

/** watch_cache.go resourceVersionTooHighRetrySeconds: the Retry-After of the time-out. */
export const RESOURCE_VERSION_TOO_HIGH_RETRY_SECONDS = 1;

/**
 * The resourceVersion a LIST must wait for: the one it names, with any resourceVersionMatch
 * (NotOlderThan, Exact and the legacy exact read with a limit all wait in the watch cache); 0
 * ("any", or none: a consistent read, which this store always is fresh for) waits for nothing.
 * A continue token reads at a version the store has served already.
 */
export function listWaitsFor(opts: ListOptions): number {
  if (opts.continue) return 0;
  return parsedResourceVersion(opts.resourceVersion);
}

/**
 * The resourceVersion a WATCH must wait for: only one that sends its initial events (client-go's
 * WatchList) waits (cacher.go waitUntilWatchCacheFreshAndForceAllEvents); a plain watch from a
 * future resourceVersion is accepted and sends the changes after it.
 */
export function watchWaitsFor(opts: ListOptions, sendInitialEvents: boolean | undefined): number {
  return sendInitialEvents ? parsedResourceVersion(opts.resourceVersion) : 0;
}

/** A resourceVersion as a number; 0 when absent or malformed (the read itself rejects those). */
function parsedResourceVersion(rv: string | undefined): number {
  const n = Number(rv ?? '');
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * Calls `done` (once, never synchronously) when the store has reached `rv`, or after
 * BLOCK_TIMEOUT_MS on `clock`, whichever comes first. Returns a cancel that keeps `done` from
 * being called (the client went away, or the server closes).
 */
export function waitUntilFresh(
  store: Store,
  clock: Clock,
  rv: number,
  done: () => void,
): () => void {
  let over = false;
  const finish = () => {
    if (over) return;
    over = true;
    unsubscribe();
    clock.clearTimeout(timer);
    done();
  };
  const unsubscribe = store.subscribe(() => {
    if (store.resourceVersion >= rv) finish();
  });
  const timer = clock.setTimeout(finish, BLOCK_TIMEOUT_MS);
  if (store.resourceVersion >= rv) queueMicrotask(finish);
  return () => {
    over = true;
    unsubscribe();
    clock.clearTimeout(timer);
  };
}
