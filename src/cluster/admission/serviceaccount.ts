/**
 * What the fake keeps of the ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount):
 * a pod created without a service account runs as its namespace's `default`. (The plugin's token
 * volume, image pull secrets and its refusal of a pod whose account does not exist are not
 * modelled; envtest runs kube-apiserver with the plugin off.)
 */
import type { MutatingAdmissionPlugin } from './admission';
import { isObject } from '../apimachinery/patch';

const MIRROR_POD = 'kubernetes.io/config.mirror';

export const serviceAccountAdmission: MutatingAdmissionPlugin = (a) => {
  if (a.operation !== 'CREATE' || a.subresource) return;
  if (a.type.info.group !== '' || a.type.info.plural !== 'pods') return;
  // A static pod's mirror is the kubelet's, never given a service account.
  if (a.object.metadata.annotations?.[MIRROR_POD] !== undefined) return;
  if (!isObject(a.object.spec)) a.object.spec = {};
  const spec = a.object.spec as Record<string, unknown>;
  if (!spec.serviceAccountName) spec.serviceAccountName = 'default';
};
