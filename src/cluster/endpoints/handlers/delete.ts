/**
 * DELETE of one object or of a collection (k8s.io/apiserver's handlers/delete.go: DeleteResource
 * and DeleteCollection).
 */
import { decodeDeleteOptions } from '../decode';
import { deleteCode, deleteResponse } from '../deleteresponse';
import type { DeleteOptions, ListOptions } from '../../apimachinery/types';
import { send } from './response';
import { objectKey, type RequestScope } from './scope';
import { admittedWrite, reviewOptions } from './admitted';

export async function deleteResource(s: RequestScope, name: string): Promise<void> {
  const key = objectKey(s, name);
  const before = s.cluster.peek(s.type, key);
  const dopts = decodeDeleteOptions(s.q, s.body, s.req.headers['content-type']);
  const out = await admittedWrite(s, deleteOptions(s, dopts), () =>
    s.cluster.deleteAs(s.t, key, dopts),
  );
  s.record?.objectsOf(before, out);
  return send(s, deleteCode(out, dopts), deleteResponse(s.t, out));
}

export async function deleteCollection(s: RequestScope, listOpts: ListOptions): Promise<void> {
  const dopts = decodeDeleteOptions(s.q, s.body, s.req.headers['content-type']);
  // One session for the collection: each object's delete is admitted, as the registry's
  // DeleteCollection deletes them one by one through deleteValidation.
  const out = await admittedWrite(s, deleteOptions(s, dopts), () =>
    s.cluster.deleteCollection(s.type, listOpts, dopts),
  );
  return send(s, 200, out);
}

/** DeleteOptions as the AdmissionReview carries them. */
function deleteOptions(s: RequestScope, dopts: DeleteOptions): Record<string, unknown> {
  const { propagationPolicy, gracePeriodSeconds, preconditions } = dopts;
  return reviewOptions(s, 'DeleteOptions', {
    ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
    ...(preconditions ? { preconditions } : {}),
    ...(propagationPolicy ? { propagationPolicy } : {}),
  });
}
