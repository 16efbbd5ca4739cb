/**
 * Dynamic provisioning and binding of PersistentVolumeClaims, as a one-node cluster with a
 * hostPath provisioner does it: kube-controller-manager's persistentvolume-binder hands a claim
 * of a class whose provisioner is external to that provisioner (the storage-provisioner
 * annotations and the ExternalProvisioning event), the cluster's own provisioner (PROVISIONER)
 * creates a volume `pvc-<claim uid>` pre-bound to the claim (Provisioning / ProvisioningSucceeded
 * events), and the binder binds the two (the claim's volumeName, bind-completed and
 * bound-by-controller annotations, phase Bound with capacity and access modes; the volume's phase
 * Bound). A volume whose claim is gone is Released, and deleted under reclaimPolicy Delete.
 * A volume no claim names is Available. Not modelled: WaitForFirstConsumer (the cluster's class
 * binds Immediate), binding claims to pre-existing volumes, expansion.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';

const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };
const PV = { apiVersion: 'v1', kind: 'PersistentVolume' };
const SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
const BINDER = 'persistentvolume-controller';
const MANAGER = { fieldManager: 'kube-controller-manager' };

/** The provisioner of the cluster's `standard` class: volumes are directories on the fake node. */
export const PROVISIONER = 'reconcile-studio.io/hostpath';
export const DEFAULT_CLASS = 'standard';
const ANN_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
const ANN_BETA_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
export const IS_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';

/** The cluster's default StorageClass, registered where a node runs (as kind installs one). */
export function standardStorageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_CLASS, annotations: { [IS_DEFAULT_CLASS]: 'true' } },
    provisioner: PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
  };
}

export function startPersistentVolumeController(cluster: ControllerHost): () => void {
  const claims = new WorkQueue(BINDER, cluster.clock, (key) => syncClaim(key));
  const volumes = new WorkQueue(BINDER, cluster.clock, (name) => syncVolume(name));

  function write(obj: KubeObject, status = false): KubeObject | undefined {
    try {
      return cluster.update(obj, status ? { subresource: 'status', ...MANAGER } : MANAGER);
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      return undefined;
    }
  }

  /** syncUnboundClaim for a claim of a dynamically provisioned class, then the binding. */
  function syncClaim(key: string): void {
    const [ns, name] = key.split('/');
    const claim = cluster.peek(PVC, { namespace: ns, name });
    if (!claim || claim.metadata.deletionTimestamp) return;
    const spec = rec(claim.spec);
    if (rec(claim.status).phase === 'Bound') return;
    const volumeName = typeof spec.volumeName === 'string' ? spec.volumeName : '';
    if (volumeName) {
      const pv = cluster.peek(PV, { name: volumeName });
      if (pv) bind(claim, pv);
      return;
    }
    const className = typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
    if (!className) return;
    const sc = cluster.peek(SC, { name: className });
    if (!sc) return;
    // A volume this provisioner made for the claim already: bind it.
    const mine = `pvc-${claim.metadata.uid}`;
    const existing = cluster.peek(PV, { name: mine });
    if (existing) return bind(claim, existing);
    if (rec(sc).volumeBindingMode === 'WaitForFirstConsumer') return;
    const provisioner = String(rec(sc).provisioner ?? '');
    let current = claim;
    if (claim.metadata.annotations?.[ANN_PROVISIONER] !== provisioner) {
      const next = clone(claim);
      next.metadata.annotations = {
        ...(next.metadata.annotations ?? {}),
        [ANN_BETA_PROVISIONER]: provisioner,
        [ANN_PROVISIONER]: provisioner,
      };
      const written = write(next);
      if (!written) return claims.addRateLimited(key);
      current = written;
      cluster.recordEvent(
        current,
        'Normal',
        'ExternalProvisioning',
        `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
        BINDER,
      );
    }
    if (provisioner === PROVISIONER) provision(current, sc);
  }

  /** The cluster's provisioner: a hostPath volume on the fake node, pre-bound to the claim. */
  function provision(claim: KubeObject, sc: KubeObject): void {
    const source = `${PROVISIONER}_reconcile-studio-node`;
    const who = `${claim.metadata.namespace}/${claim.metadata.name}`;
    cluster.recordEvent(
      claim,
      'Normal',
      'Provisioning',
      `External provisioner is provisioning volume for claim "${who}"`,
      source,
    );
    const spec = rec(claim.spec);
    const name = `pvc-${claim.metadata.uid}`;
    const pv: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [ANN_PROVISIONED_BY]: PROVISIONER } },
      spec: {
        capacity: { storage: rec(rec(spec.resources).requests).storage ?? '1Gi' },
        accessModes: spec.accessModes ?? ['ReadWriteOnce'],
        claimRef: {
          kind: 'PersistentVolumeClaim',
          namespace: claim.metadata.namespace,
          name: claim.metadata.name,
          uid: claim.metadata.uid,
          apiVersion: 'v1',
          resourceVersion: claim.metadata.resourceVersion,
        },
        persistentVolumeReclaimPolicy: rec(sc).reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata.name,
        volumeMode: spec.volumeMode ?? 'Filesystem',
        hostPath: { path: `/var/local/reconcile-studio/${name}`, type: 'DirectoryOrCreate' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  {
                    key: 'kubernetes.io/hostname',
                    operator: 'In',
                    values: ['reconcile-studio-node'],
                  },
                ],
              },
            ],
          },
        },
      },
    };
    try {
      cluster.create(pv, { fieldManager: PROVISIONER });
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code !== 409) {
        cluster.recordEvent(
          claim,
          'Warning',
          'ProvisioningFailed',
          `failed to provision volume with StorageClass "${sc.metadata.name}": ${err.message}`,
          source,
        );
        return;
      }
    }
    cluster.recordEvent(
      claim,
      'Normal',
      'ProvisioningSucceeded',
      `Successfully provisioned volume ${name}`,
      source,
    );
  }

  /** bind: the volume's phase, then the claim's volumeName and annotations, then its status. */
  function bind(claim: KubeObject, pv: KubeObject): void {
    const ref = rec(rec(pv.spec).claimRef);
    if (ref.uid && ref.uid !== claim.metadata.uid) return;
    let vol: KubeObject | undefined = pv;
    if (rec(pv.status).phase !== 'Bound') {
      const next = clone(pv);
      next.status = { ...rec(next.status), phase: 'Bound' };
      vol = write(next, true);
      if (!vol) return;
    }
    let c: KubeObject | undefined = claim;
    const ann = claim.metadata.annotations ?? {};
    if (
      rec(claim.spec).volumeName !== pv.metadata.name ||
      !ann[ANN_BIND_COMPLETED] ||
      !ann[ANN_BOUND_BY_CONTROLLER]
    ) {
      const next = clone(claim);
      const boundByController = rec(claim.spec).volumeName !== pv.metadata.name;
      rec(next.spec).volumeName = pv.metadata.name;
      next.metadata.annotations = {
        ...ann,
        ...(boundByController || ann[ANN_BOUND_BY_CONTROLLER]
          ? { [ANN_BOUND_BY_CONTROLLER]: 'yes' }
          : {}),
        [ANN_BIND_COMPLETED]: 'yes',
      };
      c = write(next);
      if (!c) return;
    }
    const spec = rec(vol.spec);
    const next = clone(c);
    next.status = {
      ...rec(next.status),
      phase: 'Bound',
      accessModes: spec.accessModes,
      capacity: spec.capacity,
    };
    write(next, true);
  }

  /** A volume whose claim is gone is Released; under Delete it is deleted. */
  function syncVolume(name: string): void {
    const pv = cluster.peek(PV, { name });
    if (!pv || pv.metadata.deletionTimestamp) return;
    const ref = rec(rec(pv.spec).claimRef);
    if (!ref.name) {
      // An unused volume is Available (syncVolume's updateVolumePhase).
      if (rec(pv.status).phase !== 'Available') {
        const next = clone(pv);
        next.status = { ...rec(next.status), phase: 'Available' };
        write(next, true);
      }
      return;
    }
    const claim = cluster.peek(PVC, { namespace: String(ref.namespace), name: String(ref.name) });
    if (claim && claim.metadata.uid === ref.uid) {
      if (rec(claim.status).phase !== 'Bound') claims.add(`${ref.namespace}/${ref.name}`);
      return;
    }
    if (rec(pv.status).phase === 'Bound' || rec(pv.status).phase === 'Pending') {
      const next = clone(pv);
      next.status = { ...rec(next.status), phase: 'Released' };
      if (!write(next, true)) return;
    }
    if (rec(pv.spec).persistentVolumeReclaimPolicy === 'Delete')
      try {
        cluster.delete(PV, { name });
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === '/persistentvolumeclaims') {
      const key = `${c.object.metadata.namespace}/${c.object.metadata.name}`;
      if (c.type !== 'DELETED') claims.add(key);
      else {
        const vol = rec(c.object.spec).volumeName;
        if (typeof vol === 'string' && vol) volumes.add(vol);
        volumes.add(`pvc-${c.object.metadata.uid}`);
      }
      return;
    }
    if (c.storageKey === '/persistentvolumes' && c.type !== 'DELETED')
      volumes.add(c.object.metadata.name!);
  });
  return () => {
    unsub();
    claims.stop();
    volumes.stop();
  };
}
