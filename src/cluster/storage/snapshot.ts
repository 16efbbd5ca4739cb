/**
 * Reads at a past resourceVersion, as etcd serves a range read at a revision: the pages of a
 * chunked list (`limit`/`continue`) all read at the first page's resourceVersion, and a list with
 * `resourceVersionMatch=Exact` reads at the one it names. The store keeps current objects and a
 * window of recent changes; the objects as they were at `rv` are the current ones with every change
 * after `rv` undone. Older than the window is etcd's "compacted": a 410 with the apiserver's
 * messages (`storage/etcd3/store.go`).
 */
import { newGone } from '../apimachinery/errors';
import { objectKey } from './store';
import type { Store } from './store';
import type { KubeObject } from '../apimachinery/types';

/** etcd3 store's `expired`. */
export const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';

/**
 * etcd3 store's `inconsistentContinue`: the 410 that carries a continue token (resourceVersion -1)
 * which goes on from the same key at the newest resourceVersion.
 */
export const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can ' +
  'start a new list without the continue parameter, or use the continue token in this response ' +
  'to retrieve the remainder of the results. Continuing with the provided token results in an ' +
  'inconsistent list - objects that were created, modified, or deleted between the time the ' +
  'first chunk was returned and now may show up in the list.';

/**
 * The objects of one resource that changed after `rv`, as they were at `rv` (undefined: absent
 * then); undefined when changes after `rv` have left the window.
 */
function undone(
  store: Store,
  storageKey: string,
  rv: number,
): Map<string, KubeObject | undefined> | undefined {
  const changes = store.since(rv);
  if (!changes) return undefined;
  const before = new Map<string, KubeObject | undefined>();
  // Newest first, so the earliest change after rv has the last word.
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i];
    if (c.storageKey !== storageKey) continue;
    const md = c.object.metadata;
    before.set(objectKey(md.namespace, md.name ?? ''), c.type === 'ADDED' ? undefined : c.old);
  }
  return before;
}

/**
 * Like `store.scan`, at resourceVersion `rv`: the objects (key order) of `storageKey` in
 * `namespace` after the key `after`. Throws `gone` when `rv` is older than the window keeps.
 */
export function scanAt(
  store: Store,
  storageKey: string,
  rv: number,
  gone: () => Error,
  namespace?: string,
  after?: string,
): Iterable<[string, KubeObject]> {
  const current = store.scan(storageKey, namespace, after);
  if (rv >= store.resourceVersion) return current;
  const before = undone(store, storageKey, rv);
  if (!before) throw gone();
  const prefix = namespace !== undefined ? `${namespace}/` : undefined;
  const inRange = (k: string) =>
    (prefix === undefined || k.startsWith(prefix)) && (after === undefined || k > after);
  const then = [...before].filter(([k]) => inRange(k)).sort(([a], [b]) => (a < b ? -1 : 1));
  return merged(current, then, before);
}

/** Current objects with those changed since replaced by what they were (or dropped). */
function* merged(
  current: Iterable<[string, KubeObject]>,
  then: Array<[string, KubeObject | undefined]>,
  before: Map<string, KubeObject | undefined>,
): Generator<[string, KubeObject]> {
  let i = 0;
  for (const [k, o] of current) {
    for (; i < then.length && then[i][0] < k; i++) {
      const old = then[i][1];
      if (old) yield [then[i][0], old];
    }
    if (!before.has(k)) {
      yield [k, o];
      continue;
    }
    if (i < then.length && then[i][0] === k) {
      const old = then[i][1];
      i++;
      if (old) yield [k, old];
    }
  }
  for (; i < then.length; i++) {
    const old = then[i][1];
    if (old) yield [then[i][0], old];
  }
}

/** The 410 of a list at a resourceVersion the window no longer reaches. */
export function listTooOld(): Error {
  return newGone(LIST_TOO_OLD);
}

/** The 410 of a continue token whose resourceVersion the window no longer reaches. */
export function continueTooOld(token: string): Error {
  const err = newGone(INCONSISTENT_CONTINUE);
  err.status.metadata = { continue: token };
  return err;
}
