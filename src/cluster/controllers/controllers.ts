/**
 * Starts the cluster's built-in controllers, as kube-controller-manager runs its controllers
 * against the apiserver. The CRD finalizer is apiextensions-apiserver's own and always runs. The
 * GC, namespace, quota and disruption controllers belong to the cluster's integrity and run unless
 * `controllerManager` is false (envtest's control plane: an apiserver and no controller manager);
 * the workload controllers (ServiceAccounts, Deployment, ReplicaSet, Job, TTL-after-finished,
 * CronJob, and the kwok-like pod lifecycle) run unless `workloads` is false.
 */
import type { ControllerHost } from './controllerhost';
import { startCrdFinalizer } from '../apiextensions/crdcontroller';
import { startCronJobController } from './cronjob';
import { startDeploymentController } from './deployment';
import { startDisruptionController } from './disruption';
import { startGarbageCollector } from './garbagecollector';
import { startJobController } from './job';
import type { KubeletOptions } from './kubelet';
import { startKubelet } from './kubelet';
import { startNamespaceController, startServiceAccountsController } from './namespace';
import { startQuotaController } from '../admission/quota';
import { startReplicaSetController } from './replicaset';
import { startTtlAfterFinishedController } from './ttlafterfinished';

export function startControllers(
  cluster: ControllerHost,
  opts: { workloads: boolean; controllerManager?: boolean; kubelet?: KubeletOptions },
): Array<() => void> {
  const stops = [startCrdFinalizer(cluster)];
  if (opts.controllerManager === false) return stops;
  stops.push(
    startNamespaceController(cluster),
    startGarbageCollector(cluster),
    startQuotaController(cluster),
    startDisruptionController(cluster),
  );
  if (opts.workloads)
    stops.push(
      startServiceAccountsController(cluster),
      startDeploymentController(cluster),
      startReplicaSetController(cluster),
      startJobController(cluster),
      startTtlAfterFinishedController(cluster),
      startCronJobController(cluster),
      startKubelet(cluster, opts.kubelet),
    );
  return stops;
}
