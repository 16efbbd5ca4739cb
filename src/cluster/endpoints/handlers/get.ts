/**
 * GET of one object (k8s.io/apiserver's handlers/get.go): the stored JSON as is, a Table for
 * `kubectl get`, PartialObjectMetadata for metadata-only clients, or the scale subresource.
 */
import { toTable } from '../table';
import { partialObjectMetadata, send, sendRaw } from './response';
import { objectKey, type RequestScope } from './scope';

export function getResource(s: RequestScope, name: string): void | Promise<void> {
  const { cluster, type } = s;
  const key = objectKey(s, name);
  if (s.subresource === 'scale') return send(s, 200, cluster.getScale(type, key));
  if (s.metaOnly) return send(s, 200, partialObjectMetadata(cluster.get(type, key), s.metaOnly));
  if (!s.table) return sendRaw(s, 200, cluster.getJSON(type, key));
  const obj = cluster.get(type, key);
  return send(
    s,
    200,
    toTable(s.t, [obj], cluster.clock.now(), {
      resourceVersion: obj.metadata.resourceVersion,
      includeObject: s.q.get('includeObject') ?? undefined,
    }),
  );
}
