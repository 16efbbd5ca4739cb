/**
 * The StorageObjectInUseProtection admission plugin: every PersistentVolumeClaim and
 * PersistentVolume created (not its subresources) carries the protection finalizer, so that
 * deleting one leaves it Terminating until the pvc- / pv-protection controllers see it unused
 * (controllers/storageprotection.ts). envtest's apiserver runs the plugin with no controller:
 * a deleted claim stays Terminating there, as it does here without the controller manager.
 */
import type { MutatingAdmissionPlugin } from './admission';

export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION = 'kubernetes.io/pv-protection';

export const storageObjectInUseProtection: MutatingAdmissionPlugin = (a) => {
  if (a.operation !== 'CREATE' || a.subresource || a.type.info.group !== '') return;
  const finalizer =
    a.type.info.plural === 'persistentvolumeclaims'
      ? PVC_PROTECTION
      : a.type.info.plural === 'persistentvolumes'
        ? PV_PROTECTION
        : undefined;
  if (!finalizer) return;
  const md = a.object.metadata;
  if (!md.finalizers?.includes(finalizer)) md.finalizers = [...(md.finalizers ?? []), finalizer];
};
