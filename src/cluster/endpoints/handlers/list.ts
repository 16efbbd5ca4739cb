/**
 * GET of a collection (k8s.io/apiserver's handlers/get.go ListResource, without its watch half,
 * which is watch.ts): the store's cached list JSON, a Table, or PartialObjectMetadataList.
 */
import { int64Param } from '../decode';
import { toTable } from '../table';
import type { ListOptions } from '../../apimachinery/types';
import { listWaitsFor } from '../../storage/watchcache';
import { untilFresh } from './fresh';
import { partialObjectMetadata, send, sendRaw } from './response';
import type { RequestScope } from './scope';
import { after, convertedRead } from './converted';

/** The list options of a collection request (list, watch, deletecollection). */
export function listOptionsOf(q: URLSearchParams, namespace: string | undefined): ListOptions {
  // Built by assignment: an object literal of conditional spreads costs microseconds per request
  // on Node 20's V8 (see docs/ARCHITECTURE.md, "Object spreads on the hot path").
  const opts: ListOptions = {};
  if (namespace !== undefined) opts.namespace = namespace;
  const labelSelector = q.get('labelSelector');
  if (labelSelector) opts.labelSelector = labelSelector;
  const fieldSelector = q.get('fieldSelector');
  if (fieldSelector) opts.fieldSelector = fieldSelector;
  if (q.get('limit')) opts.limit = int64Param(q, 'limit');
  const cont = q.get('continue');
  if (cont) opts.continue = cont;
  const rv = q.get('resourceVersion');
  if (rv) opts.resourceVersion = rv;
  const rvMatch = q.get('resourceVersionMatch');
  if (rvMatch) opts.resourceVersionMatch = rvMatch;
  return opts;
}

export function listResource(s: RequestScope, listOpts: ListOptions): void | Promise<void> {
  const { cluster, t } = s;
  const rv = listWaitsFor(listOpts);
  if (rv <= cluster.store.resourceVersion) return serveList(s, listOpts);
  // A bad selector is a 400 at once: the handler parses the options before the storage waits.
  cluster.filterFor(t, listOpts);
  return untilFresh(s, rv).then((answer) => (answer ? serveList(s, listOpts) : undefined));
}

function serveList(s: RequestScope, listOpts: ListOptions): void | Promise<void> {
  const { cluster, type } = s;
  const metaOnly = s.metaOnly;
  if (metaOnly)
    return after(
      convertedRead(s, () => cluster.list(type, listOpts)),
      (list) =>
        send(s, 200, {
          kind: 'PartialObjectMetadataList',
          apiVersion: metaOnly,
          metadata: list.metadata,
          items: list.items.map((o) => partialObjectMetadata(o, metaOnly)),
        }),
    );
  if (!s.table)
    return after(
      convertedRead(s, () => cluster.listJSON(type, listOpts)),
      (json) => sendRaw(s, 200, json),
    );
  return after(
    convertedRead(s, () => cluster.list(type, listOpts)),
    (list) =>
      send(
        s,
        200,
        toTable(s.t, list.items, cluster.clock.now(), {
          resourceVersion: list.metadata.resourceVersion,
          continue: list.metadata.continue,
          includeObject: s.q.get('includeObject') ?? undefined,
        }),
      ),
  );
}
