/**
 * The resource registry: which kinds the cluster serves and how (scope, subresources, short
 * names). Built-in kinds are every stored resource the pinned release's discovery lists
 * (apidata.ts); a CustomResourceDefinition adds its resources when it
 * becomes Established and removes them when it goes away, as the apiextensions-apiserver does.
 */
import type { CrdConversion } from '../apiextensions/conversion';
import { newNotFound } from '../apimachinery/errors';
import type { GroupResource } from '../apimachinery/errors';
import type { CompiledSchema, ScaleSpec as SchemaScaleSpec } from '../apiextensions/schema';
import type { ResourceInfo, TypeRef } from '../apimachinery/types';
import { apiData } from '../api/apidata';
import type { ApiResource } from '../api/apidata';
import { splitApiVersion } from '../apimachinery/types';

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}

/** A scale subresource's paths: where a kind keeps its replicas and its selector. */
export type ScaleSpec = SchemaScaleSpec;

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
  /** A CRD's `spec.conversion` and its storage version's apiVersion (conversion.ts). */
  conversion?: CrdConversion;
  storageApiVersion?: string;
  schema?: CompiledSchema;
  printerColumns?: PrinterColumn[];
  /** Extra field selectors a kind supports beyond metadata.name/namespace. */
  fieldLabels?: (obj: Record<string, unknown>) => Record<string, string>;
}

/** A resource's field selectors beyond metadata.name/namespace, by `apiVersion/plural`. */
type FieldLabels = NonNullable<ResourceType['fieldLabels']>;

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

/**
 * Field selectors are code in kube-apiserver (each registry's GetAttrs / field label conversion),
 * not data it publishes: the ones the cluster supports, by `apiVersion/plural`.
 */
const FIELD_LABELS: Partial<Record<string, FieldLabels>> = {
  'v1/namespaces': (o) => ({ 'status.phase': str(rec(o.status).phase) }),
  'v1/nodes': (o) => ({ 'spec.unschedulable': String(rec(o.spec).unschedulable ?? false) }),
  'v1/secrets': (o) => ({ type: str(o.type) }),
  // PodToSelectableFields; the v1 conversion also takes status.podIPs (in no field set, so
  // always "") and spec.host (the old name of spec.nodeName).
  'v1/pods': (o) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const podIPs = Array.isArray(status.podIPs) ? status.podIPs : [];
    return {
      'spec.nodeName': str(spec.nodeName),
      'spec.host': str(spec.nodeName),
      'spec.restartPolicy': str(spec.restartPolicy),
      'spec.schedulerName': str(spec.schedulerName),
      'spec.serviceAccountName': str(spec.serviceAccountName),
      'spec.hostNetwork': String(spec.hostNetwork === true),
      'status.phase': str(status.phase),
      'status.podIP': podIPs.length ? str(rec(podIPs[0]).ip) : str(status.podIP),
      'status.podIPs': '',
      'status.nominatedNodeName': str(status.nominatedNodeName),
    };
  },
  'v1/events': coreEventFields,
  'events.k8s.io/v1/events': (o) => {
    const core = coreEventFields(o);
    return Object.fromEntries(
      Object.entries(EVENTS_V1_FIELDS).map(([label, coreLabel]) => [label, core[coreLabel]]),
    );
  },
};

/**
 * Subresources the cluster serves. status and scale are generic (any kind that lists them);
 * the others have handlers of their own and are served only where listed here. Discovery lists
 * every subresource of the release; a request for one not served here is a 404.
 */
const GENERIC_SUBRESOURCES = new Set(['status', 'scale']);
const HANDLED_SUBRESOURCES: Partial<Record<string, string[]>> = {
  'v1/pods': ['binding', 'eviction', 'log'],
  // TokenREST (tokenrequest.ts).
  'v1/serviceaccounts': ['token'],
  // ApprovalREST: the generic update under the CSR's approval strategy (certificatesigningrequest.ts).
  'certificates.k8s.io/v1/certificatesigningrequests': ['approval'],
};

/**
 * Groups whose resources are reviews: create-only calls answered at once and never stored
 * (reviews.ts serves them), so they are listed in discovery but kept out of the Registry, whose
 * kinds the cluster stores.
 */
const REVIEW_GROUPS = new Set(['authentication.k8s.io', 'authorization.k8s.io']);

/** One resource of the release's discovery as the type the cluster serves it through. */
function builtinType(group: string, version: string, r: ApiResource, subs: string[]): ResourceType {
  const apiVersion = group ? `${group}/${version}` : version;
  const key = `${apiVersion}/${r.name}`;
  const handled = HANDLED_SUBRESOURCES[key] ?? [];
  const subresources = subs.filter((s) => GENERIC_SUBRESOURCES.has(s) || handled.includes(s));
  const fieldLabels = FIELD_LABELS[key];
  return {
    info: {
      group,
      version,
      kind: r.kind,
      listKind: `${r.kind}List`,
      plural: r.name,
      singular: r.singularName,
      namespaced: r.namespaced,
      verbs: r.verbs,
      subresources,
      shortNames: r.shortNames ?? [],
      ...(r.categories ? { categories: r.categories } : {}),
    },
    apiVersion,
    // core and events.k8s.io Events are one store, as in etcd.
    storageKey: r.kind === 'Event' ? '/events' : `${group}/${r.name}`,
    gr: { group, resource: r.name },
    statusSubresource: subresources.includes('status'),
    ...(subresources.includes('scale')
      ? {
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        }
      : {}),
    ...(fieldLabels ? { fieldLabels } : {}),
  };
}

interface Builtins {
  stored: ResourceType[];
  reviews: ResourceType[];
}

/** Every resource of the release: stored ones, and reviews; bindings and the like are neither. */
function builtins(): Builtins {
  const out: Builtins = { stored: [], reviews: [] };
  for (const g of apiData().groups) {
    for (const v of g.versions) {
      const resources = v.list.resources;
      for (const r of resources) {
        if (r.name.includes('/')) continue;
        const subs = resources
          .filter((s) => s.name.startsWith(`${r.name}/`))
          .map((s) => s.name.slice(r.name.length + 1));
        const t = builtinType(g.name, v.version, r, subs);
        if (r.storageVersionHash) out.stored.push(t);
        else if (REVIEW_GROUPS.has(g.name)) out.reviews.push(t);
      }
    }
  }
  return out;
}

let reviews: readonly ResourceType[] | undefined;

/** The review resources of authentication.k8s.io and authorization.k8s.io (see reviews.ts). */
export function reviewTypes(): readonly ResourceType[] {
  return (reviews ??= builtins().reviews);
}

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
    // Fresh objects per registry: a cluster may attach to its types what another must not see.
    for (const t of builtins().stored) this.add(t);
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

/**
 * How discovery describes a CRD's subresource (status or scale, the two a CRD can have), as
 * apiextensions-apiserver does; built-in resources' subresources are the release's documents.
 */
export interface SubresourceInfo {
  /** Set when the kind is not the resource's own (Scale). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
}

export function subresourceInfo(t: ResourceType, sub: string): SubresourceInfo {
  if (sub === 'scale')
    return {
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    };
  return { kind: t.info.kind, verbs: ['get', 'patch', 'update'] };
}
