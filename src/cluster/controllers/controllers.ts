/**
 * Starts the cluster's built-in controllers, as kube-controller-manager runs its controllers
 * against the apiserver. The CRD finalizer and naming controller are apiextensions-apiserver's own
 * and always run. The GC, namespace, quota, disruption and pvc/pv-protection controllers belong
 * to the cluster's integrity, as does the ValidatingAdmissionPolicy status controller (it writes
 * nothing but policies' status), and run unless `controllerManager` is false (envtest's control plane:
 * an apiserver and no controller manager); the workload controllers (ServiceAccounts, Deployment,
 * ReplicaSet, Job, TTL-after-finished, CronJob, StatefulSet, DaemonSet, EndpointSlice,
 * PersistentVolume binding with the fake node's provisioner, and the kwok-like pod lifecycle) run
 * unless `workloads` is false.
 */
import type { ControllerHost } from './controllerhost';
import { startCrdFinalizer, startCrdNamingController } from '../apiextensions/crdcontroller';
import { startCronJobController } from './cronjob';
import { startDaemonSetController } from './daemonset';
import { startDeploymentController } from './deployment';
import { startDisruptionController } from './disruption';
import { startEndpointSliceController } from './endpointslice';
import { startGarbageCollector } from './garbagecollector';
import { startJobController } from './job';
import type { KubeletOptions } from './kubelet';
import { startKubelet } from './kubelet';
import { startNamespaceController, startServiceAccountsController } from './namespace';
import { startQuotaController } from '../admission/quota';
import { startPersistentVolumeController } from './persistentvolume';
import { REPLICATION_CONTROLLER, startReplicaSetController } from './replicaset';
import { startStatefulSetController } from './statefulset';
import { startStorageProtectionControllers } from './storageprotection';
import { startTtlAfterFinishedController } from './ttlafterfinished';
import { startValidatingAdmissionPolicyStatusController } from './validatingadmissionpolicystatus';

export function startControllers(
  cluster: ControllerHost,
  opts: { workloads: boolean; controllerManager?: boolean; kubelet?: KubeletOptions },
): Array<() => void> {
  const stops = [startCrdFinalizer(cluster), startCrdNamingController(cluster)];
  if (opts.controllerManager === false) return stops;
  stops.push(
    startNamespaceController(cluster),
    startGarbageCollector(cluster),
    startQuotaController(cluster),
    startDisruptionController(cluster),
    startStorageProtectionControllers(cluster),
    startValidatingAdmissionPolicyStatusController(cluster),
  );
  if (opts.workloads)
    stops.push(
      startServiceAccountsController(cluster),
      startDeploymentController(cluster),
      startReplicaSetController(cluster),
      startReplicaSetController(cluster, REPLICATION_CONTROLLER),
      startJobController(cluster),
      startTtlAfterFinishedController(cluster),
      startCronJobController(cluster),
      startStatefulSetController(cluster),
      startDaemonSetController(cluster),
      startEndpointSliceController(cluster),
      startPersistentVolumeController(cluster),
      startKubelet(cluster, opts.kubelet),
    );
  return stops;
}
