/**
 * PUT of one object (k8s.io/apiserver's handlers/update.go), its status or scale, and a
 * Namespace's `finalize` subresource.
 */
import {
  adoptRequestNamespace,
  bodyDuplicateFields,
  checkKind,
  decodeObject,
  decodeTyped,
} from '../decode';
import { newBadRequest } from '../../apimachinery/errors';
import { send, sendWritten } from './response';
import { objectKey, writeOptions, type RequestScope } from './scope';
import { admittedWrite, reviewOptions } from './admitted';
import type { UpdateOptions, UpdateSubresource } from '../../apimachinery/types';
import type { HandOver } from '../../cluster';

export async function updateResource(s: RequestScope, name: string): Promise<void> {
  const { cluster, t, type, subresource } = s;
  const key = objectKey(s, name);
  // The stored object is never mutated in place, so holding it is holding the "before".
  const before = cluster.peek(type, key);
  const obj = decodeObject(s.body, s.req.headers['content-type'], t.info.kind);
  let unknownFields: string[] | undefined;
  if (subresource !== 'scale') {
    checkKind(obj, t, (apiVersion, kind) => !!s.cluster.registry.forKind({ apiVersion, kind }));
    // Into its Go type before admission, as in create.ts.
    unknownFields = decodeTyped(t, obj);
  }
  if (obj.metadata.name && obj.metadata.name !== name) {
    throw newBadRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  obj.metadata.name = name;
  adoptRequestNamespace(obj, t, s.namespace);
  if (subresource === 'finalize') {
    const finalizers = (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
    const out = cluster.setNamespaceFinalizers(name, finalizers, obj.metadata.resourceVersion);
    s.record?.objectsOf(before, out);
    return send(s, 200, out);
  }
  const opts: UpdateOptions & HandOver = writeOptions(
    s,
    unknownFields,
    bodyDuplicateFields(s.body, s.req.headers['content-type']),
  );
  if (subresource) opts.subresource = subresource as UpdateSubresource;
  const out = await admittedWrite(s, reviewOptions(s, 'UpdateOptions'), (fresh) =>
    cluster.updateAs(t, fresh(obj), opts),
  );
  s.record?.objectsOf(before, out);
  return sendWritten(s, 200, out);
}
