/**
 * The resource registry: which kinds the cluster serves and how (scope, subresources, short
 * names). Built-in kinds are listed here; a CustomResourceDefinition adds its resources when it
 * becomes Established and removes them when it goes away, as the apiextensions-apiserver does.
 */
import { newNotFound } from './errors';
import type { GroupResource } from './errors';
import type { CompiledSchema } from './schema';
import type { ResourceInfo, TypeRef } from './types';
import { splitApiVersion } from './types';

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** One served group/version/resource and the strategy the cluster applies to it. */
export interface ResourceType {
  info: ResourceInfo;
  /** `group/version` or `version`. */
  apiVersion: string;
  /** Storage identity: every version of a group/resource shares one store. */
  storageKey: string;
  gr: GroupResource;
  statusSubresource: boolean;
  scale?: ScaleSpec;
  /** Name of the CRD that defines it; undefined for built-ins. */
  crd?: string;
  schema?: CompiledSchema;
  printerColumns?: PrinterColumn[];
  /** Extra field selectors a kind supports beyond metadata.name/namespace. */
  fieldLabels?: (obj: Record<string, unknown>) => Record<string, string>;
}

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

interface BuiltinSpec {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  status?: boolean;
  scale?: boolean;
  /** Subresources with handlers of their own (pods/log, pods/eviction; see subresourceInfo). */
  handled?: string[];
  verbs?: string[];
  categories?: string[];
  fieldLabels?: ResourceType['fieldLabels'];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
function rec(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}

/** The field selectors of core/v1 Events (the form Events are stored in). */
function coreEventFields(o: Record<string, unknown>): Record<string, string> {
  const io = rec(o.involvedObject);
  return {
    'involvedObject.kind': str(io.kind),
    'involvedObject.namespace': str(io.namespace),
    'involvedObject.name': str(io.name),
    'involvedObject.uid': str(io.uid),
    'involvedObject.apiVersion': str(io.apiVersion),
    'involvedObject.resourceVersion': str(io.resourceVersion),
    'involvedObject.fieldPath': str(io.fieldPath),
    reason: str(o.reason),
    reportingComponent: str(o.reportingComponent),
    source: str(rec(o.source).component),
    type: str(o.type),
  };
}

/** events.k8s.io/v1's field selectors and the core/v1 ones they stand for (as its conversion maps them). */
const EVENTS_V1_FIELDS: Record<string, string> = {
  reason: 'reason',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
  source: 'source',
  type: 'type',
};

const BUILTINS: BuiltinSpec[] = [
  {
    apiVersion: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    fieldLabels: (o) => ({ 'status.phase': str(rec(o.status).phase) }),
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    status: true,
    fieldLabels: (o) => ({ 'spec.unschedulable': String(rec(o.spec).unschedulable ?? false) }),
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    fieldLabels: (o) => ({ type: str(o.type) }),
  },
  {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    status: true,
    categories: ['all'],
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    status: true,
    handled: ['binding', 'eviction', 'log'],
    categories: ['all'],
    fieldLabels: (o) => ({
      'spec.nodeName': str(rec(o.spec).nodeName),
      'spec.restartPolicy': str(rec(o.spec).restartPolicy),
      'spec.schedulerName': str(rec(o.spec).schedulerName),
      'spec.serviceAccountName': str(rec(o.spec).serviceAccountName),
      'status.phase': str(rec(o.status).phase),
      'status.podIP': str(rec(o.status).podIP),
    }),
  },
  {
    apiVersion: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: coreEventFields,
  },
  {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    plural: 'resourcequotas',
    namespaced: true,
    shortNames: ['quota'],
    status: true,
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    status: true,
    scale: true,
    categories: ['all'],
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    shortNames: ['rs'],
    status: true,
    scale: true,
    categories: ['all'],
  },
  {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    status: true,
    categories: ['api-extensions'],
  },
  {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    fieldLabels: (o) => {
      const core = coreEventFields(o);
      return Object.fromEntries(
        Object.entries(EVENTS_V1_FIELDS).map(([label, coreLabel]) => [label, core[coreLabel]]),
      );
    },
  },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    shortNames: ['pdb'],
    status: true,
  },
  // RBAC objects are stored and served (kubebuilder's config/rbac applies) but not enforced:
  // every request with the cluster's token is allowed.
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    namespaced: false,
  },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', plural: 'roles', namespaced: true },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    plural: 'rolebindings',
    namespaced: true,
  },
];

function builtinType(b: BuiltinSpec): ResourceType {
  const { group, version } = splitApiVersion(b.apiVersion);
  const subresources: string[] = [];
  if (b.status) subresources.push('status');
  if (b.scale) subresources.push('scale');
  subresources.push(...(b.handled ?? []));
  // Discovery lists a resource's subresources in name order, as kube-apiserver's does.
  subresources.sort();
  return {
    info: {
      group,
      version,
      kind: b.kind,
      listKind: `${b.kind}List`,
      plural: b.plural,
      singular: b.kind.toLowerCase(),
      namespaced: b.namespaced,
      verbs: b.verbs ?? ALL_VERBS,
      subresources,
      shortNames: b.shortNames ?? [],
      ...(b.categories ? { categories: b.categories } : {}),
    },
    apiVersion: b.apiVersion,
    // core and events.k8s.io Events are one store, as in etcd.
    storageKey: b.kind === 'Event' ? '/events' : `${group}/${b.plural}`,
    gr: { group, resource: b.plural },
    statusSubresource: !!b.status,
    ...(b.scale
      ? {
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        }
      : {}),
    ...(b.fieldLabels ? { fieldLabels: b.fieldLabels } : {}),
  };
}

/**
 * The review resources of authentication.k8s.io and authorization.k8s.io: create-only calls
 * answered at once and never stored (reviews.ts serves them), so they are listed in discovery
 * but kept out of the Registry, whose kinds the cluster stores.
 */
function review(apiVersion: string, kind: string, namespaced = false): BuiltinSpec {
  return { apiVersion, kind, plural: `${kind.toLowerCase()}s`, namespaced, verbs: ['create'] };
}

const REVIEWS: BuiltinSpec[] = [
  review('authentication.k8s.io/v1', 'SelfSubjectReview'),
  review('authentication.k8s.io/v1', 'TokenReview'),
  review('authorization.k8s.io/v1', 'LocalSubjectAccessReview', true),
  review('authorization.k8s.io/v1', 'SelfSubjectAccessReview'),
  review('authorization.k8s.io/v1', 'SelfSubjectRulesReview'),
  review('authorization.k8s.io/v1', 'SubjectAccessReview'),
];

export const REVIEW_TYPES: readonly ResourceType[] = REVIEWS.map(builtinType);

export class Registry {
  /**
   * apiVersion → Kind → type. Two levels rather than one `apiVersion/Kind` key: every read and
   * write looks its kind up, and a key joined per lookup is a string made and hashed per call.
   */
  private readonly byKind = new Map<string, Map<string, ResourceType>>();
  /** key: `apiVersion/plural` */
  private readonly byResource = new Map<string, ResourceType>();
  private readonly order: ResourceType[] = [];

  constructor() {
    for (const b of BUILTINS) this.add(builtinType(b));
  }

  add(t: ResourceType): void {
    let kinds = this.byKind.get(t.apiVersion);
    if (!kinds) this.byKind.set(t.apiVersion, (kinds = new Map()));
    const existing = kinds.get(t.info.kind);
    if (existing) this.order.splice(this.order.indexOf(existing), 1);
    kinds.set(t.info.kind, t);
    this.byResource.set(`${t.apiVersion}/${t.info.plural}`, t);
    this.order.push(t);
  }

  /** Removes every version a CRD added. */
  removeCrd(crdName: string): ResourceType[] {
    const gone = this.order.filter((t) => t.crd === crdName);
    for (const t of gone) {
      this.byKind.get(t.apiVersion)?.delete(t.info.kind);
      this.byResource.delete(`${t.apiVersion}/${t.info.plural}`);
      this.order.splice(this.order.indexOf(t), 1);
    }
    return gone;
  }

  forKind(type: TypeRef): ResourceType | undefined {
    return this.byKind.get(type.apiVersion)?.get(type.kind);
  }

  /** Like forKind but a 404 the way the apiserver reports an unknown resource. */
  mustForKind(type: TypeRef): ResourceType {
    const t = this.forKind(type);
    if (!t) {
      const { group } = splitApiVersion(type.apiVersion);
      throw newNotFound({ group, resource: type.kind.toLowerCase() + 's' }, '');
    }
    return t;
  }

  forResource(apiVersion: string, plural: string): ResourceType | undefined {
    return this.byResource.get(`${apiVersion}/${plural}`);
  }

  all(): ResourceType[] {
    return [...this.order];
  }

  /** Every served version of one stored group/resource. */
  versionsOf(storageKey: string): ResourceType[] {
    return this.order.filter((t) => t.storageKey === storageKey);
  }
}

/** How discovery describes a subresource: the kind it takes and answers, and its verbs. */
export interface SubresourceInfo {
  /** Set when the kind is not the resource's own (Scale, Eviction). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
}

export function subresourceInfo(t: ResourceType, sub: string): SubresourceInfo {
  switch (sub) {
    case 'scale':
      return {
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      };
    case 'eviction':
      return { group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] };
    case 'binding':
      return { kind: 'Binding', verbs: ['create'] };
    case 'log':
      return { kind: t.info.kind, verbs: ['get'] };
    default:
      return { kind: t.info.kind, verbs: ['get', 'patch', 'update'] };
  }
}
