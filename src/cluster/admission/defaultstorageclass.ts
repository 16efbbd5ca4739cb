/**
 * The DefaultStorageClass admission plugin: a PersistentVolumeClaim created without a class (no
 * spec.storageClassName and no beta storage-class annotation; an empty name is a class, "none")
 * gets the default StorageClass — of several marked default, the newest, then the first by name —
 * as kube-apiserver's plugin sets it. With no default class the claim is left as it is.
 */
import type { MutatingAdmissionPlugin } from './admission';
import type { ControllerHost } from '../controllers/controllerhost';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

const SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
const IS_DEFAULT = 'storageclass.kubernetes.io/is-default-class';
const BETA_IS_DEFAULT = 'storageclass.beta.kubernetes.io/is-default-class';
const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** GetDefaultClass. */
export function defaultClass(host: Pick<ControllerHost, 'scan'>): KubeObject | undefined {
  const defaults = [...host.scan(SC)].filter(
    (c) =>
      c.metadata.annotations?.[IS_DEFAULT] === 'true' ||
      c.metadata.annotations?.[BETA_IS_DEFAULT] === 'true',
  );
  defaults.sort(
    (a, b) =>
      Date.parse(String(b.metadata.creationTimestamp)) -
        Date.parse(String(a.metadata.creationTimestamp)) ||
      String(a.metadata.name).localeCompare(String(b.metadata.name)),
  );
  return defaults[0];
}

export function defaultStorageClass(host: Pick<ControllerHost, 'scan'>): MutatingAdmissionPlugin {
  return (a) => {
    if (a.operation !== 'CREATE' || a.subresource) return;
    if (a.type.info.group !== '' || a.type.info.plural !== 'persistentvolumeclaims') return;
    if (!isObject(a.object.spec)) a.object.spec = {};
    const spec = a.object.spec as Record<string, unknown>;
    if (a.object.metadata.annotations?.[BETA_CLASS] !== undefined) return;
    if (typeof spec.storageClassName === 'string') return;
    const def = defaultClass(host);
    if (def) spec.storageClassName = def.metadata.name;
  };
}
