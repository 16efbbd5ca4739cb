/**
 * Starts the cluster's built-in controllers. The GC, namespace, CRD, quota and disruption
 * controllers belong to the cluster's integrity and always run; the workload controllers (Deployment, ReplicaSet,
 * and the kwok-like pod lifecycle) run unless `controllers: false`.
 */
import type { Cluster } from './cluster';
import { startCrdFinalizer } from './crdcontroller';
import { defaultTolerationSeconds } from './defaulttolerationseconds';
import { startDeploymentController } from './deployment';
import { startDisruptionController } from './disruption';
import { startGarbageCollector } from './garbagecollector';
import { startKubelet } from './kubelet';
import { namespaceLifecycle, startNamespaceController } from './namespace';
import { quotaAdmission, startQuotaController } from './quota';
import { startReplicaSetController } from './replicaset';

export function startControllers(
  cluster: Cluster,
  opts: { workloads: boolean },
): Array<() => void> {
  cluster.addMutatingAdmission(defaultTolerationSeconds);
  cluster.addAdmission(namespaceLifecycle(cluster));
  cluster.addAdmission(quotaAdmission(cluster));
  const stops = [
    startNamespaceController(cluster),
    startGarbageCollector(cluster),
    startCrdFinalizer(cluster),
    startQuotaController(cluster),
    startDisruptionController(cluster),
  ];
  if (opts.workloads)
    stops.push(
      startDeploymentController(cluster),
      startReplicaSetController(cluster),
      startKubelet(cluster),
    );
  return stops;
}
