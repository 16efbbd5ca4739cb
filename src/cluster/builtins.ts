/**
 * The fake cluster as users meet it: the API (Cluster) with the built-in admission plugins
 * registered and the built-in controllers running against it, as kube-apiserver is assembled
 * with its admission chain and kube-controller-manager runs beside it as a client. Everything
 * that constructs a cluster for users (CLI, extension, simulation) goes through createCluster;
 * `new Cluster()` is the bare API, for tests that want no controller at all.
 */
import { Cluster } from './cluster';
import type { ClusterOptions } from './cluster';
import { startControllers } from './controllers/controllers';
import { startRootCACertPublisher } from './controllers/rootcacertpublisher';
import { startServiceAccountTokensController } from './controllers/serviceaccounttokens';
import { defaultStorageClass } from './admission/defaultstorageclass';
import { defaultTolerationSeconds } from './admission/defaulttolerationseconds';
import { priorityAdmission } from './admission/priority';
import { serviceAccountAdmission } from './admission/serviceaccount';
import { ensureSystemPriorityClasses } from './registry/bootstrap';
import { storageObjectInUseProtection } from './admission/storageprotection';
import type { KubeletOptions } from './controllers/kubelet';
import { NODE_NAME, fakeNode } from './controllers/kubelet';
import { ensureKubernetesService } from './controllers/kubernetesservice';
import { ensureApfConfiguration, startApfConfigConsumer } from './controllers/apf';
import { DEFAULT_CLASS, standardStorageClass } from './controllers/persistentvolume';
import { namespaceLifecycle } from './controllers/namespace';
import { limitRangerDefaults, limitRangerValidation } from './admission/limitranger';
import { quotaAdmission } from './admission/quota';
import { validatingAdmissionPolicy } from './admission/policy/validating/dispatcher';
import { mutatingAdmissionPolicy } from './admission/policy/mutating/dispatcher';
import type { ServiceMap } from './admission/webhook/client';
import {
  mutatingWebhookAdmission,
  validatingWebhookAdmission,
} from './admission/webhook/dispatcher';

export interface BuiltinsOptions extends KubeletOptions {
  /**
   * Run the built-in workload controllers (Deployment, ReplicaSet, pod lifecycle). Default true;
   * false is `--no-controllers`: the integrity controllers (GC, namespace, CRD, quota) still run.
   */
  controllers?: boolean;
  /**
   * Run kube-controller-manager's controllers at all (GC, namespace, quota, disruption, and the
   * workload controllers when `controllers` is not false). Default true; false is envtest's
   * control plane, an apiserver alone: `reconcile-studio test` without `--controllers`.
   */
  controllerManager?: boolean;
  /**
   * Where the Services that webhooks' `clientConfig.service` name are served on this machine
   * (`namespace/name` → `host:port`; `serve --webhook-service`).
   */
  webhookServices?: ServiceMap;
}

/**
 * Registers the built-in admission plugins in kube-apiserver's order (ServiceAccount, Priority,
 * DefaultStorageClass, StorageObjectInUseProtection,
 * DefaultTolerationSeconds,
 * MutatingAdmissionPolicy, MutatingAdmissionWebhook; NamespaceLifecycle, LimitRanger, ValidatingAdmissionPolicy,
 * ValidatingAdmissionWebhook, ResourceQuota),
 * registers the
 * fake node and starts the built-in controllers; Cluster.close() stops them.
 */
export function withBuiltins(cluster: Cluster, opts: BuiltinsOptions = {}): Cluster {
  const services = opts.webhookServices ?? new Map<string, string>();
  // kube-apiserver's plugin order: NamespaceLifecycle, LimitRanger, ServiceAccount, ...
  cluster.addMutatingAdmission(limitRangerDefaults(cluster));
  cluster.addMutatingAdmission(serviceAccountAdmission);
  cluster.addMutatingAdmission(priorityAdmission(cluster));
  cluster.addMutatingAdmission(defaultStorageClass(cluster));
  cluster.addMutatingAdmission(storageObjectInUseProtection);
  cluster.addMutatingAdmission(defaultTolerationSeconds);
  cluster.addMutatingAdmission(mutatingAdmissionPolicy(cluster));
  cluster.addMutatingAdmission(mutatingWebhookAdmission(cluster, services));
  cluster.addAdmission(namespaceLifecycle(cluster));
  cluster.addAdmission(limitRangerValidation(cluster));
  cluster.addAdmission(validatingAdmissionPolicy(cluster));
  cluster.addAdmission(validatingWebhookAdmission(cluster, services));
  cluster.addAdmission(quotaAdmission(cluster));
  // kube-apiserver's own bootstrap controller keeps the `kubernetes` Service, controllers or not,
  // and its priority-and-fairness configuration is made and watched inside it too.
  ensureKubernetesService(cluster);
  ensureApfConfiguration(cluster);
  ensureSystemPriorityClasses(cluster);
  cluster.onClose(startApfConfigConsumer(cluster));
  // The node registers itself, as a kubelet does: only where one runs (envtest has no node).
  const nodeRuns = opts.controllers !== false && opts.controllerManager !== false;
  if (nodeRuns && !cluster.peek({ apiVersion: 'v1', kind: 'Node' }, { name: NODE_NAME }))
    cluster.create(fakeNode(cluster.now()));
  // Its default StorageClass, whose provisioner makes hostPath volumes on it (as kind installs
  // `standard`), so claims of StatefulSets and operators bind.
  const SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass' };
  if (nodeRuns && !cluster.peek(SC, { name: DEFAULT_CLASS }))
    cluster.create(standardStorageClass());
  const stops = startControllers(cluster, {
    workloads: opts.controllers !== false && opts.controllerManager !== false,
    controllerManager: opts.controllerManager,
    kubelet: opts,
  });
  for (const stop of stops) cluster.onClose(stop);
  // The apiserver is up: its watch cache starts here, after its own bootstrap writes.
  cluster.store.startWatchWindow();
  if (opts.controllers !== false && opts.controllerManager !== false) {
    // The controllers that need the serving CA and signing key: those of the latest server.
    let stopServed: Array<() => void> = [];
    cluster.onServed(({ caPem, serviceAccountTokens }) => {
      for (const stop of stopServed) stop();
      stopServed = [
        startRootCACertPublisher(cluster, caPem),
        startServiceAccountTokensController(cluster, caPem, serviceAccountTokens),
      ];
    });
    cluster.onClose(() => stopServed.forEach((stop) => stop()));
  }
  return cluster;
}

export type CreateClusterOptions = ClusterOptions & BuiltinsOptions;

/** A cluster with its built-ins: what `serve`, `simulate`, `test` and the extension run. */
export function createCluster(opts: CreateClusterOptions = {}): Cluster {
  return withBuiltins(new Cluster(opts), opts);
}
