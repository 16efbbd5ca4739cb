/**
 * DELETE of one object or of a collection (k8s.io/apiserver's handlers/delete.go: DeleteResource
 * and DeleteCollection).
 */
import { decodeDeleteOptions } from '../decode';
import { deleteCode, deleteResponse } from '../deleteresponse';
import type { ListOptions } from '../../apimachinery/types';
import { withoutTypeMeta } from '../../apimachinery/typemeta';
import { send } from './response';
import { objectKey, type RequestScope } from './scope';

export function deleteResource(s: RequestScope, name: string): void | Promise<void> {
  const key = objectKey(s, name);
  const before = s.cluster.peek(s.type, key);
  const dopts = decodeDeleteOptions(s.q, s.body, s.req.headers['content-type']);
  const out = s.cluster.deleteAs(s.t, key, dopts);
  s.record?.objectsOf(before, out);
  return send(s, deleteCode(out, dopts), deleteResponse(s.t, out));
}

export function deleteCollection(s: RequestScope, listOpts: ListOptions): void | Promise<void> {
  const dopts = decodeDeleteOptions(s.q, s.body, s.req.headers['content-type']);
  const list = s.cluster.deleteCollection(s.type, listOpts, dopts);
  // The deleted objects are listed as a list's items are: a built-in's without apiVersion and kind.
  return send(s, 200, s.t.crd ? list : { ...list, items: list.items.map(withoutTypeMeta) });
}
