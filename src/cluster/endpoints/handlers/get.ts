/**
 * GET of one object (k8s.io/apiserver's handlers/get.go): the stored JSON as is, a Table for
 * `kubectl get`, PartialObjectMetadata for metadata-only clients, or the scale subresource; a
 * custom resource stored at another version is converted first (converted.ts).
 */
import { toTable } from '../table';
import { partialObjectMetadata, send, sendRaw } from './response';
import { objectKey, type RequestScope } from './scope';
import { after, convertedRead } from './converted';

export function getResource(s: RequestScope, name: string): void | Promise<void> {
  const { cluster, type } = s;
  const key = objectKey(s, name);
  if (s.subresource === 'scale') return send(s, 200, cluster.getScale(type, key));
  const metaOnly = s.metaOnly;
  if (metaOnly)
    return after(
      convertedRead(s, () => cluster.get(type, key)),
      (obj) => send(s, 200, partialObjectMetadata(obj, metaOnly)),
    );
  if (!s.table)
    return after(
      convertedRead(s, () => cluster.getJSON(type, key)),
      (json) => sendRaw(s, 200, json),
    );
  return after(
    convertedRead(s, () => cluster.get(type, key)),
    (obj) =>
      send(
        s,
        200,
        toTable(s.t, [obj], cluster.clock.now(), {
          resourceVersion: obj.metadata.resourceVersion,
          includeObject: s.q.get('includeObject') ?? undefined,
        }),
      ),
  );
}
