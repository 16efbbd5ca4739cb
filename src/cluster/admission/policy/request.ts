/**
 * The `request` variable of an admission policy's CEL (admission/plugin/cel CreateAdmissionRequest):
 * the AdmissionRequest without its objects, its kind and resource the ones the policy matched (an
 * equivalent version's), its requestKind and requestResource the request's own.
 */
import type { ResourceType } from '../../registry/registry';
import type { AdmissionAttributes } from '../admission';
import { requestName, requestNamespace } from '../webhook/invocation';

/** The AdmissionRequest a policy's `request` sees (CreateAdmissionRequest), as resource `t`. */
export function admissionRequest(a: AdmissionAttributes, t: ResourceType): Record<string, unknown> {
  const user = a.session?.request.user;
  const gvk = (r: ResourceType) => ({
    group: r.info.group,
    version: r.info.version,
    kind: r.info.kind,
  });
  const gvr = (r: ResourceType) => ({
    group: r.info.group,
    version: r.info.version,
    resource: r.info.plural,
  });
  return {
    kind: gvk(t),
    resource: gvr(t),
    subResource: a.subresource ?? '',
    requestKind: gvk(a.type),
    requestResource: gvr(a.type),
    requestSubResource: a.subresource ?? '',
    name: requestName(a),
    namespace: requestNamespace(a),
    operation: a.operation,
    userInfo: {
      username: user?.username ?? '',
      ...(user?.uid ? { uid: user.uid } : {}),
      groups: user?.groups ?? [],
      ...(user?.extra ? { extra: user.extra } : {}),
    },
    dryRun: a.dryRun,
    options: a.session?.request.options ?? null,
  };
}

/**
 * The name a policy's refusal gives the object (admission.extractResourceName): the request's
 * name, else the name or generateName of `object` — the old object for a DELETE. Mutating
 * admission passes the object as it sees it, before a create's name is generated.
 */
export function refusedName(
  a: AdmissionAttributes,
  object: { metadata?: { name?: string; generateName?: string } } | null | undefined = a.object,
): string {
  const md = (a.operation === 'DELETE' ? a.old : object)?.metadata;
  return requestName(a) || md?.name || md?.generateName || 'Unknown';
}
