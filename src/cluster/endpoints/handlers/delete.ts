/**
 * DELETE of one object or of a collection (k8s.io/apiserver's handlers/delete.go: DeleteResource
 * and DeleteCollection).
 */
import { decodeDeleteOptions } from '../decode';
import { deleteCode, deleteResponse } from '../deleteresponse';
import type { DeleteOptions, ListOptions } from '../../apimachinery/types';
import { withoutTypeMeta } from '../../apimachinery/typemeta';
import { send } from './response';
import { objectKey, type RequestScope } from './scope';
import { admittedWrite, reviewOptions } from './admitted';

export async function deleteResource(s: RequestScope, name: string): Promise<void> {
  const key = objectKey(s, name);
  const before = s.cluster.peek(s.type, key);
  const dopts = decodeDeleteOptions(s.q, s.body, s.req.headers['content-type']);
  warnIfOrphaning(s, dopts);
  const out = await admittedWrite(s, deleteOptions(s, dopts), () =>
    s.cluster.deleteAs(s.t, key, dopts),
  );
  s.record?.objectsOf(before, out);
  return send(s, deleteCode(out, dopts), deleteResponse(s.t, out));
}

export async function deleteCollection(s: RequestScope, listOpts: ListOptions): Promise<void> {
  const dopts = decodeDeleteOptions(s.q, s.body, s.req.headers['content-type']);
  warnIfOrphaning(s, dopts);
  // One session for the collection: each object's delete is admitted, as the registry's
  // DeleteCollection deletes them one by one through deleteValidation.
  const out = await admittedWrite(s, deleteOptions(s, dopts), () =>
    s.cluster.deleteCollection(s.type, listOpts, dopts),
  );
  // The deleted objects are listed as a list's items are: a built-in's without apiVersion and kind.
  return send(s, 200, s.t.crd ? out : { ...out, items: out.items.map(withoutTypeMeta) });
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

/**
 * The Job REST's Delete and DeleteCollection (registry/batch/job/storage): a Job deleted without a
 * propagation policy orphans its pods, which it says before deleting, whatever comes of it.
 */
function warnIfOrphaning(s: RequestScope, dopts: DeleteOptions): void {
  if (s.t.info.group !== 'batch' || s.t.info.kind !== 'Job') return;
  if (dopts.propagationPolicy !== undefined || dopts.orphanDependents !== undefined) return;
  s.warnings.push(
    'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
  );
}
