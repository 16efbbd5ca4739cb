/**
 * What the analyzer knows about built-in kinds by name: whether they live in a namespace. Several
 * rules ask ("can this List be scoped by namespace?", "can this child be owned by a namespaced
 * object?"), so the lists live here once.
 */

/** Cluster-scoped built-in kinds (kube-apiserver registers them without a namespace). */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'StorageClass',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'IngressClass',
  'RuntimeClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'ClusterTrustBundle',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
]);

/** Namespaced built-in kinds an operator commonly lists or creates. */
export const NAMESPACED_KINDS: ReadonlySet<string> = new Set([
  'Pod',
  'Service',
  'ConfigMap',
  'Secret',
  'ServiceAccount',
  'PersistentVolumeClaim',
  'Endpoints',
  'Event',
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
  'Ingress',
  'NetworkPolicy',
  'Role',
  'RoleBinding',
  'PodDisruptionBudget',
  'HorizontalPodAutoscaler',
  'EndpointSlice',
  'Lease',
]);
