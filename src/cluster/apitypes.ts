/**
 * The Go types of the built-in kinds (k8s.io/api, k8s.io/apimachinery's ObjectMeta), as far as
 * the fake cluster knows them, for typed decoding (gotypes.ts). Object envelopes and ObjectMeta
 * are declared completely, so an undeclared field there is dropped and reported as the apiserver
 * does; the large specs (PodSpec, ServiceSpec, ...) are `open`: their declared fields are type
 * checked, the others kept as they are.
 */
import type { GoStruct, GoType } from './gotypes';

const str: GoType = { k: 'string' };
const named = (name: string): GoType => ({ k: 'string', name });
const bool: GoType = { k: 'bool' };
const int32: GoType = { k: 'int', name: 'int32' };
const int64: GoType = { k: 'int', name: 'int64' };
const any: GoType = { k: 'any' };
const time: GoType = { k: 'time', name: 'v1.Time' };
const microTime: GoType = { k: 'time', name: 'v1.MicroTime', micro: true };
const intstr: GoType = { k: 'intstr' };
const strings: GoType = { k: 'slice', elem: str };
const stringMap: GoType = { k: 'map', elem: str };
const resourceList: GoType = { k: 'map', elem: { k: 'quantity' }, name: 'v1.ResourceList' };
const slice = (elem: GoType): GoType => ({ k: 'slice', elem });
const struct = (name: string, fields: GoStruct['fields'], open = false): GoStruct => ({
  k: 'struct',
  name,
  fields,
  ...(open ? { open } : {}),
});

const ownerReference = struct('v1.OwnerReference', {
  apiVersion: str,
  kind: str,
  name: str,
  uid: named('types.UID'),
  controller: bool,
  blockOwnerDeletion: bool,
});

const managedFieldsEntry = struct('v1.ManagedFieldsEntry', {
  manager: str,
  operation: named('v1.ManagedFieldsOperationType'),
  apiVersion: str,
  time,
  fieldsType: str,
  fieldsV1: any,
  subresource: str,
});

export const OBJECT_META = struct('v1.ObjectMeta', {
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: named('types.UID'),
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: slice(ownerReference),
  finalizers: strings,
  managedFields: slice(managedFieldsEntry),
});

const labelSelector = struct('v1.LabelSelector', {
  matchLabels: stringMap,
  matchExpressions: slice(
    struct('v1.LabelSelectorRequirement', {
      key: str,
      operator: named('v1.LabelSelectorOperator'),
      values: strings,
    }),
  ),
});

const objectReference = struct('v1.ObjectReference', {
  kind: str,
  namespace: str,
  name: str,
  uid: named('types.UID'),
  apiVersion: str,
  resourceVersion: str,
  fieldPath: str,
});

const condition = struct(
  'v1.Condition',
  { type: str, status: str, reason: str, message: str },
  true,
);

const container = struct(
  'v1.Container',
  {
    name: str,
    image: str,
    command: strings,
    args: strings,
    workingDir: str,
    ports: slice(
      struct('v1.ContainerPort', {
        name: str,
        hostPort: int32,
        containerPort: int32,
        protocol: named('v1.Protocol'),
        hostIP: str,
      }),
    ),
    env: slice(struct('v1.EnvVar', { name: str, value: str, valueFrom: any })),
    resources: struct(
      'v1.ResourceRequirements',
      { limits: resourceList, requests: resourceList },
      true,
    ),
    imagePullPolicy: named('v1.PullPolicy'),
  },
  true,
);

const podSpec = struct(
  'v1.PodSpec',
  {
    containers: slice(container),
    initContainers: slice(container),
    restartPolicy: named('v1.RestartPolicy'),
    terminationGracePeriodSeconds: int64,
    activeDeadlineSeconds: int64,
    dnsPolicy: named('v1.DNSPolicy'),
    nodeSelector: stringMap,
    serviceAccountName: str,
    nodeName: str,
    hostNetwork: bool,
    schedulerName: str,
    priority: int32,
    enableServiceLinks: bool,
  },
  true,
);

const podTemplateSpec = struct('v1.PodTemplateSpec', { metadata: OBJECT_META, spec: podSpec });

const workloadStatus = (name: string) =>
  struct(
    name,
    {
      observedGeneration: int64,
      replicas: int32,
      updatedReplicas: int32,
      readyReplicas: int32,
      availableReplicas: int32,
      unavailableReplicas: int32,
      fullyLabeledReplicas: int32,
      collisionCount: int32,
      conditions: slice(condition),
    },
    true,
  );

/** The top-level fields every object has (TypeMeta inline, metadata). */
function kind(name: string, fields: GoStruct['fields']): GoStruct {
  return struct(name, { apiVersion: str, kind: str, metadata: OBJECT_META, ...fields });
}

const BUILTIN_TYPES: Record<string, GoStruct> = {
  '/Namespace': kind('v1.Namespace', {
    spec: struct('v1.NamespaceSpec', { finalizers: slice(named('v1.FinalizerName')) }),
    status: struct(
      'v1.NamespaceStatus',
      { phase: named('v1.NamespacePhase'), conditions: slice(condition) },
      true,
    ),
  }),
  '/Node': kind('v1.Node', {
    spec: struct('v1.NodeSpec', { unschedulable: bool, podCIDR: str, providerID: str }, true),
    status: struct('v1.NodeStatus', { capacity: resourceList, allocatable: resourceList }, true),
  }),
  '/ConfigMap': kind('v1.ConfigMap', {
    immutable: bool,
    data: stringMap,
    binaryData: { k: 'map', elem: { k: 'bytes' } },
  }),
  '/Secret': kind('v1.Secret', {
    immutable: bool,
    data: { k: 'map', elem: { k: 'bytes' } },
    stringData: stringMap,
    type: named('v1.SecretType'),
  }),
  '/ServiceAccount': kind('v1.ServiceAccount', {
    secrets: slice(objectReference),
    imagePullSecrets: slice(struct('v1.LocalObjectReference', { name: str })),
    automountServiceAccountToken: bool,
  }),
  '/Service': kind('v1.Service', {
    spec: struct(
      'v1.ServiceSpec',
      {
        type: named('v1.ServiceType'),
        clusterIP: str,
        clusterIPs: strings,
        selector: stringMap,
        ports: slice(
          struct(
            'v1.ServicePort',
            {
              name: str,
              protocol: named('v1.Protocol'),
              port: int32,
              targetPort: intstr,
              nodePort: int32,
            },
            true,
          ),
        ),
      },
      true,
    ),
    status: struct('v1.ServiceStatus', {}, true),
  }),
  '/Pod': kind('v1.Pod', {
    spec: podSpec,
    status: struct(
      'v1.PodStatus',
      { phase: named('v1.PodPhase'), conditions: slice(condition), podIP: str, hostIP: str },
      true,
    ),
  }),
  '/Event': kind('v1.Event', {
    involvedObject: objectReference,
    reason: str,
    message: str,
    source: struct('v1.EventSource', { component: str, host: str }),
    firstTimestamp: time,
    lastTimestamp: time,
    count: int32,
    type: str,
    eventTime: microTime,
    series: struct('v1.EventSeries', { count: int32, lastObservedTime: microTime }),
    action: str,
    related: objectReference,
    reportingComponent: str,
    reportingInstance: str,
  }),
  'events.k8s.io/Event': kind('v1.Event', {
    eventTime: microTime,
    series: struct('v1.EventSeries', { count: int32, lastObservedTime: microTime }),
    reportingController: str,
    reportingInstance: str,
    action: str,
    reason: str,
    regarding: objectReference,
    related: objectReference,
    note: str,
    type: str,
    deprecatedSource: struct('v1.EventSource', { component: str, host: str }),
    deprecatedFirstTimestamp: time,
    deprecatedLastTimestamp: time,
    deprecatedCount: int32,
  }),
  '/ResourceQuota': kind('v1.ResourceQuota', {
    spec: struct(
      'v1.ResourceQuotaSpec',
      { hard: resourceList, scopes: slice(named('v1.ResourceQuotaScope')), scopeSelector: any },
      true,
    ),
    status: struct('v1.ResourceQuotaStatus', { hard: resourceList, used: resourceList }),
  }),
  'apps/Deployment': kind('v1.Deployment', {
    spec: struct('v1.DeploymentSpec', {
      replicas: int32,
      selector: labelSelector,
      template: podTemplateSpec,
      strategy: struct('v1.DeploymentStrategy', {
        type: named('v1.DeploymentStrategyType'),
        rollingUpdate: struct('v1.RollingUpdateDeployment', {
          maxUnavailable: intstr,
          maxSurge: intstr,
        }),
      }),
      minReadySeconds: int32,
      revisionHistoryLimit: int32,
      paused: bool,
      progressDeadlineSeconds: int32,
    }),
    status: workloadStatus('v1.DeploymentStatus'),
  }),
  'apps/ReplicaSet': kind('v1.ReplicaSet', {
    spec: struct('v1.ReplicaSetSpec', {
      replicas: int32,
      minReadySeconds: int32,
      selector: labelSelector,
      template: podTemplateSpec,
    }),
    status: workloadStatus('v1.ReplicaSetStatus'),
  }),
  'apiextensions.k8s.io/CustomResourceDefinition': kind('v1.CustomResourceDefinition', {
    spec: struct('v1.CustomResourceDefinitionSpec', { group: str, scope: str }, true),
    status: struct('v1.CustomResourceDefinitionStatus', {}, true),
  }),
  'policy/PodDisruptionBudget': kind('v1.PodDisruptionBudget', {
    spec: struct('v1.PodDisruptionBudgetSpec', {
      minAvailable: intstr,
      selector: labelSelector,
      maxUnavailable: intstr,
      unhealthyPodEvictionPolicy: named('v1.UnhealthyPodEvictionPolicyType'),
    }),
    status: struct('v1.PodDisruptionBudgetStatus', {
      observedGeneration: int64,
      disruptedPods: { k: 'map', elem: time },
      disruptionsAllowed: int32,
      currentHealthy: int32,
      desiredHealthy: int32,
      expectedPods: int32,
      conditions: slice(condition),
    }),
  }),
  'coordination.k8s.io/Lease': kind('v1.Lease', {
    spec: struct('v1.LeaseSpec', {
      holderIdentity: str,
      leaseDurationSeconds: int32,
      acquireTime: microTime,
      renewTime: microTime,
      leaseTransitions: int32,
      strategy: str,
      preferredHolder: str,
    }),
  }),
};

/**
 * The Go type an object of this group/kind decodes into. Custom resources decode as
 * unstructured: only their envelope and metadata are typed.
 */
export function goTypeOf(group: string, kindName: string, custom: boolean): GoStruct {
  if (!custom) {
    const t = BUILTIN_TYPES[`${group}/${kindName}`];
    if (t) return t;
  }
  return struct(
    'unstructured.Unstructured',
    { apiVersion: str, kind: str, metadata: OBJECT_META },
    true,
  );
}
