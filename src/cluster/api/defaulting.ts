/**
 * Defaulting of built-in kinds, generated from the pinned release's own defaulting functions
 * (scripts/apigen-defaults.mjs runs kube-apiserver's scheme defaulters on probes of every kind and
 * records each field they fill). A rule fills its field where the object leaves it unset, at every
 * list element and map value on its path, creating the structs Go always holds by value on the
 * way. The defaulters that decide on other fields (an image's tag, a Deployment's strategy type, a
 * Job's completions) are code: `CONDITIONAL` below, each named after its Go function.
 */
import { readFileSync } from 'node:fs';
import { clone } from '../apimachinery/clone';
import { isObject } from '../apimachinery/patch';
import { generatedFile } from './apidata';

/** generated/defaults.json: each served `group/version/Kind`'s rules ([path, value, zero?]). */
interface Generated {
  kinds: Record<string, { rules: [string, unknown, 1?][]; conflicts: string[] }>;
}

let generated: Generated | undefined;

function generatedRules(): Generated {
  return (generated ??= JSON.parse(
    readFileSync(generatedFile('defaults.json'), 'utf8'),
  ) as Generated);
}

/** The generated value at `path` (its struct markers dropped) of a kind: what code reuses. */
function generatedValue(gvk: string, path: string): unknown {
  const rule = generatedRules().kinds[gvk]?.rules.find(([p]) => p.replace(/!/g, '') === path);
  return rule ? clone(rule[1]) : undefined;
}

type Obj = Record<string, unknown>;

/** One step down a rule's path. */
interface Step {
  name: string;
  /** Into every element of a list, or every value of a map. */
  each?: 'list' | 'map';
  /** A struct Go holds by value: created where absent, as Go always has it. */
  make: boolean;
}

/** A field a rule fills. */
interface Leaf {
  field: string;
  value: unknown;
  /** Its zero value counts as unset (see `unset`). */
  zero: boolean;
}

/**
 * A kind's rules as a tree of their paths: one walk of the object applies them all, and a
 * pointer's absent struct skips every rule below it.
 */
interface Node {
  leaves: Leaf[];
  children: Array<{ step: Step; node: Node }>;
}

/** What a kind's defaulting does beyond its rules: code, as its Go is. */
interface Conditional {
  /**
   * Rule paths the code decides instead (the generated value there is one probe's answer);
   * `path/*` stands for the fields right below path.
   */
  replaces: string[];
  /** Reads, before the rules run, what `after` needs of the object as it came. */
  before?(obj: Obj): unknown;
  /**
   * Runs after the rules; `before` is what `before` read, `gvk` the object's
   * `group/version/Kind`, `now` the server's time (RFC 3339, seconds).
   */
  after(obj: Obj, before: unknown, gvk: string, now: string): void;
}

function parseStep(segment: string): Step {
  if (segment.endsWith('[]')) return { name: segment.slice(0, -2), each: 'list', make: false };
  if (segment.endsWith('{}')) return { name: segment.slice(0, -2), each: 'map', make: false };
  if (segment.endsWith('!')) return { name: segment.slice(0, -1), make: true };
  return { name: segment, make: false };
}

/** Unset as Go sees it; `zero`: the zero value counts (an empty list or map among them). */
function unset(v: unknown, zero: boolean): boolean {
  if (v === undefined || v === null) return true;
  if (!zero) return false;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return v === '' || v === 0 || v === false;
}

/** The containers below `v` that `step` leads to (none when a pointer's struct is absent). */
function descend(v: Obj, step: Step, make = true): Obj[] {
  let child = v[step.name];
  if (child === undefined || child === null) {
    if (!step.make || !make) return [];
    child = v[step.name] = {};
  }
  if (step.each === 'list') return Array.isArray(child) ? child.filter(isObject) : [];
  if (step.each === 'map') return isObject(child) ? Object.values(child).filter(isObject) : [];
  return isObject(child) ? [child] : [];
}

function apply(v: Obj, node: Node): void {
  for (const leaf of node.leaves)
    if (unset(v[leaf.field], leaf.zero))
      v[leaf.field] =
        typeof leaf.value === 'object' && leaf.value !== null ? clone(leaf.value) : leaf.value;
  for (const { step, node: child } of node.children)
    for (const below of descend(v, step)) apply(below, child);
}

function insert(root: Node, path: string, leaf: Omit<Leaf, 'field'>): void {
  const segments = path.split('/');
  const field = segments.pop() ?? '';
  let node = root;
  for (const segment of segments) {
    const step = parseStep(segment);
    let next = node.children.find(
      (c) => c.step.name === step.name && c.step.each === step.each && c.step.make === step.make,
    );
    if (!next) node.children.push((next = { step, node: { leaves: [], children: [] } }));
    node = next.node;
  }
  node.leaves.push({ field, ...leaf });
}

/** The rules of each `group/version/Kind`, parsed once on first use. */
let compiled: Map<string, Node> | undefined;

function rulesOf(gvk: string): Node | undefined {
  if (!compiled) {
    compiled = new Map();
    const skip = new Map(
      Object.entries(CONDITIONAL).map(([k, cs]) => [k, new Set(cs.flatMap((c) => c.replaces))]),
    );
    for (const [kind, { rules }] of Object.entries(generatedRules().kinds)) {
      const replaced = skip.get(kind.replace(/\/[^/]+\//, '/')) ?? new Set<string>();
      const root: Node = { leaves: [], children: [] };
      for (const [path, value, zero] of rules) {
        const p = path.replace(/!/g, '');
        if (replaced.has(p) || replaced.has(`${p.slice(0, p.lastIndexOf('/'))}/*`)) continue;
        insert(root, path, { value, zero: zero === 1 });
      }
      compiled.set(kind, root);
    }
  }
  return compiled.get(gvk);
}

/** Whether the release's defaulters set anything on `group/version/Kind`. */
export function hasDefaults(apiVersion: string, kind: string): boolean {
  return (
    rulesOf(gvkKey(apiVersion, kind)) !== undefined || conditionalOf(apiVersion, kind).length > 0
  );
}

function gvkKey(apiVersion: string, kind: string): string {
  return `${apiVersion.includes('/') ? apiVersion : `/${apiVersion}`}/${kind}`;
}

function conditionalOf(apiVersion: string, kind: string): Conditional[] {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return CONDITIONAL[`${group}/${kind}`] ?? [];
}

/**
 * Defaults a built-in object of `apiVersion` `kind` in place, as the apiserver's scheme does when
 * it decodes a request at that version; `now` for the few defaults that are a time.
 */
export function applyDefaults(obj: Obj, apiVersion: string, kind: string, now?: string): void {
  const conditional = conditionalOf(apiVersion, kind);
  const gvk = gvkKey(apiVersion, kind);
  const rules = rulesOf(gvk);
  if (!conditional.length) {
    if (rules) apply(obj, rules);
    return;
  }
  const read = conditional.map((c) => c.before?.(obj));
  if (rules) apply(obj, rules);
  const at = now ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  conditional.forEach((c, i) => c.after(obj, read[i], gvk, at));
}

// ---- The defaulters that read other fields -------------------------------------------------

/** The pod specs of a kind that holds one, by the path to it. */
const POD_SPEC_PATHS: Record<string, string[][]> = {
  '/Pod': [['spec']],
  '/PodTemplate': [['template', 'spec']],
  '/ReplicationController': [['spec', 'template', 'spec']],
  'apps/Deployment': [['spec', 'template', 'spec']],
  'apps/ReplicaSet': [['spec', 'template', 'spec']],
  'apps/StatefulSet': [['spec', 'template', 'spec']],
  'apps/DaemonSet': [['spec', 'template', 'spec']],
  'batch/Job': [['spec', 'template', 'spec']],
  'batch/CronJob': [['spec', 'jobTemplate', 'spec', 'template', 'spec']],
};

function at(obj: Obj, path: string[]): Obj | undefined {
  let v: unknown = obj;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return isObject(v) ? v : undefined;
}

function containersOf(spec: Obj): Obj[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((l) =>
    Array.isArray(spec[l]) ? (spec[l] as unknown[]).filter(isObject) : [],
  );
}

/**
 * distribution's reference grammar, as ParseNormalizedNamed reads an image: an optional registry
 * (host[:port]), lowercase path components, an optional tag and digest.
 */
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const DOMAIN =
  '(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?';
const REFERENCE = new RegExp(
  `^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);
const DIGEST_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/** The tag kubelet pulls (`latest` when none), or undefined when the image does not parse. */
function imageTag(image: string): string | undefined {
  const m = REFERENCE.exec(image);
  if (!m || m[1].length > 255 || /^[a-f0-9]{64}$/.test(m[1])) return undefined;
  if (m[3]) {
    const [algorithm, hex] = m[3].split(':');
    if (DIGEST_LENGTH[algorithm] !== hex.length || /[A-F]/.test(hex)) return undefined;
  }
  // The registry may be named in capitals; the path may not.
  const slash = m[1].indexOf('/');
  const first = slash < 0 ? '' : m[1].slice(0, slash);
  const registry = /[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase();
  if (!registry && m[1] !== m[1].toLowerCase()) return undefined;
  return m[2] ?? (m[3] ? '' : 'latest');
}

/**
 * SetDefaults_Container: imagePullPolicy Always for an image tagged `latest` (or not tagged, which
 * parsers.ParseImageName reads as latest), IfNotPresent otherwise, unparseable images included.
 */
function defaultImagePullPolicy(c: Obj): void {
  if (!unset(c.imagePullPolicy, true)) return;
  const image = typeof c.image === 'string' ? c.image : '';
  c.imagePullPolicy = imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

/**
 * SetDefaults_Pod (a Pod's own spec, not a template's): a container's requests default to its
 * limits, and with hostNetwork a port's hostPort to its containerPort.
 */
function defaultPodFromOtherFields(spec: Obj): void {
  for (const l of ['containers', 'initContainers']) {
    const cs = Array.isArray(spec[l]) ? (spec[l] as unknown[]).filter(isObject) : [];
    for (const c of cs) {
      if (isObject(c.resources) && isObject(c.resources.limits)) {
        const requests = isObject(c.resources.requests) ? c.resources.requests : {};
        for (const [r, q] of Object.entries(c.resources.limits))
          if (requests[r] === undefined) requests[r] = q;
        c.resources.requests = requests;
      }
      if (spec.hostNetwork === true && Array.isArray(c.ports))
        for (const p of c.ports)
          if (isObject(p) && unset(p.hostPort, true)) p.hostPort = p.containerPort ?? 0;
    }
  }
}

/** SetDefaults_Volume: an image volume's pull policy follows its reference's tag, as a container's. */
function defaultImageVolumes(spec: Obj): void {
  if (!Array.isArray(spec.volumes)) return;
  for (const v of spec.volumes) {
    if (!isObject(v) || !isObject(v.image) || !unset(v.image.pullPolicy, true)) continue;
    const ref = typeof v.image.reference === 'string' ? v.image.reference : '';
    v.image.pullPolicy = imageTag(ref) === 'latest' ? 'Always' : 'IfNotPresent';
  }
}

const CONTAINER_PATHS = [
  ...['initContainers', 'containers', 'ephemeralContainers'].map((l) => `${l}[]/imagePullPolicy`),
  'volumes[]/image/pullPolicy',
];

function podSpecConditional(kind: string): Conditional {
  const paths = POD_SPEC_PATHS[kind];
  return {
    replaces: paths.flatMap((p) => CONTAINER_PATHS.map((c) => [...p, c].join('/'))),
    after(obj) {
      for (const p of paths) {
        const spec = at(obj, p);
        if (!spec) continue;
        for (const c of containersOf(spec)) defaultImagePullPolicy(c);
        defaultImageVolumes(spec);
        if (kind === '/Pod') defaultPodFromOtherFields(spec);
      }
    },
  };
}

/** SetDefaults_Namespace: a named namespace is labelled with its name. */
const namespaceNameLabel: Conditional = {
  replaces: [],
  after(obj) {
    const md = isObject(obj.metadata) ? obj.metadata : undefined;
    if (!md || typeof md.name !== 'string' || !md.name) return;
    md.labels = {
      ...(isObject(md.labels) ? md.labels : {}),
      'kubernetes.io/metadata.name': md.name,
    };
  },
};

/** SetDefaults_NetworkPolicy: no policyTypes means Ingress, and Egress too when it has egress rules. */
const networkPolicyTypes: Conditional = {
  replaces: ['spec/policyTypes'],
  after(obj) {
    const spec = at(obj, ['spec']);
    if (!spec || (Array.isArray(spec.policyTypes) && spec.policyTypes.length)) return;
    spec.policyTypes =
      Array.isArray(spec.egress) && spec.egress.length ? ['Ingress', 'Egress'] : ['Ingress'];
  },
};

/**
 * SetDefaults_Service: a zero targetPort is the port; a session affinity of None has no config,
 * ClientIP's timeout defaults to three hours; the traffic policies and load-balancer fields by type.
 */
const serviceFromOtherFields: Conditional = {
  replaces: [
    'spec/sessionAffinityConfig',
    'spec/internalTrafficPolicy',
    'spec/externalTrafficPolicy',
    'spec/allocateLoadBalancerNodePorts',
    'status/loadBalancer/ingress[]/ipMode',
  ],
  after(obj) {
    const spec = at(obj, ['spec']);
    if (!spec) return;
    // A zero targetPort (0 or "", as protobuf sends an unset one) is the port.
    if (Array.isArray(spec.ports))
      for (const p of spec.ports)
        if (isObject(p) && unset(p.targetPort, true)) p.targetPort = p.port ?? 0;
    const type = spec.type;
    const externally =
      type === 'LoadBalancer' ||
      type === 'NodePort' ||
      (type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
    if (externally && unset(spec.externalTrafficPolicy, true))
      spec.externalTrafficPolicy = 'Cluster';
    if (
      unset(spec.internalTrafficPolicy, false) &&
      (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')
    )
      spec.internalTrafficPolicy = 'Cluster';
    if (type === 'LoadBalancer') {
      if (unset(spec.allocateLoadBalancerNodePorts, false))
        spec.allocateLoadBalancerNodePorts = true;
      const ingress = at(obj, ['status', 'loadBalancer'])?.ingress;
      if (Array.isArray(ingress))
        for (const i of ingress)
          if (isObject(i) && typeof i.ip === 'string' && i.ip && unset(i.ipMode, false))
            i.ipMode = 'VIP';
    }
    if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
    if (spec.sessionAffinity === 'ClientIP') {
      const cfg = isObject(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : undefined;
      const ip = cfg && isObject(cfg.clientIP) ? cfg.clientIP : undefined;
      if (!ip || ip.timeoutSeconds === undefined || ip.timeoutSeconds === null)
        spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
    }
  },
};

/**
 * SetDefaults_Deployment, _DaemonSet: a rolling update's parameters are made only under type
 * RollingUpdate (the type itself defaults to it); SetDefaults_StatefulSet makes them only when it
 * defaulted the type.
 */
function rollingUpdate(strategyField: string, onlyWhenTypeDefaulted: boolean): Conditional {
  const path = `spec/${strategyField}/rollingUpdate`;
  return {
    replaces: [path, `${path}/*`],
    before: (obj) => unset(at(obj, ['spec', strategyField])?.type, true),
    after(obj, typeWasUnset, gvk) {
      const strategy = at(obj, ['spec', strategyField]);
      if (!strategy || strategy.type !== 'RollingUpdate') return;
      const defaults = (generatedValue(gvk, path) ?? {}) as Obj;
      if (!isObject(strategy.rollingUpdate)) {
        if (onlyWhenTypeDefaulted && !typeWasUnset) return;
        strategy.rollingUpdate = {};
      }
      const ru = strategy.rollingUpdate as Obj;
      for (const [k, v] of Object.entries(defaults)) if (unset(ru[k], false)) ru[k] = v;
    },
  };
}

/**
 * SetDefaults_Job: completions default to 1 only when parallelism is unset too; the backoff limit
 * is unlimited under a per-index limit; a Job without labels takes its template's.
 */
const jobFromOtherFields: Conditional = {
  replaces: ['spec/completions', 'spec/backoffLimit', 'spec/podReplacementPolicy'],
  before(obj) {
    const spec = at(obj, ['spec']) ?? {};
    return unset(spec.completions, false) && unset(spec.parallelism, false);
  },
  after(obj, bothUnset) {
    const spec = at(obj, ['spec']);
    if (!spec) return;
    if (bothUnset) spec.completions = 1;
    if (unset(spec.backoffLimit, false))
      spec.backoffLimit = unset(spec.backoffLimitPerIndex, false) ? 6 : 2147483647;
    if (unset(spec.podReplacementPolicy, false))
      spec.podReplacementPolicy = isObject(spec.podFailurePolicy)
        ? 'Failed'
        : 'TerminatingOrFailed';
    // The same map, not a copy, as Go assigns it: the selector labels the strategy then adds to
    // the template are the Job's too (prepareJobForCreate separates them).
    const labels = at(obj, ['spec', 'template', 'metadata'])?.labels;
    const md = isObject(obj.metadata) ? obj.metadata : (obj.metadata = {});
    if (isObject(labels) && !(isObject(md.labels) && Object.keys(md.labels).length))
      md.labels = labels;
  },
};

/**
 * SetDefaults_CustomResourceDefinition(Spec): the singular and list names follow the kind; the
 * stored versions start with the storage version.
 */
const crdFromOtherFields: Conditional = {
  replaces: ['spec/names/singular', 'spec/names/listKind', 'status/storedVersions'],
  after(obj) {
    const names = at(obj, ['spec', 'names']);
    const kind = names && typeof names.kind === 'string' ? names.kind : '';
    if (names && unset(names.singular, true)) names.singular = kind.toLowerCase();
    if (names && unset(names.listKind, true) && kind) names.listKind = `${kind}List`;
    const status = isObject(obj.status) ? obj.status : (obj.status = {});
    const stored = status.storedVersions;
    if (Array.isArray(stored) && stored.length) return;
    const versions = at(obj, ['spec'])?.versions;
    const storage = Array.isArray(versions)
      ? versions.find((v) => isObject(v) && v.storage === true)
      : undefined;
    if (isObject(storage)) status.storedVersions = [storage.name ?? ''];
  },
};

/**
 * SetDefaults_LimitRangeItem: a Container item's default limit is its max, its default request
 * its default limit, then its min (each per resource, where unset).
 */
const limitRangeDefaults: Conditional = {
  replaces: ['spec/limits[]/default', 'spec/limits[]/defaultRequest'],
  after(obj) {
    const limits = at(obj, ['spec'])?.limits;
    if (!Array.isArray(limits)) return;
    for (const item of limits) {
      if (!isObject(item) || item.type !== 'Container') continue;
      const def = isObject(item.default) ? item.default : {};
      const req = isObject(item.defaultRequest) ? item.defaultRequest : {};
      for (const [r, q] of Object.entries(isObject(item.max) ? item.max : {})) def[r] ??= q;
      for (const [r, q] of Object.entries(def)) req[r] ??= q;
      for (const [r, q] of Object.entries(isObject(item.min) ? item.min : {})) req[r] ??= q;
      // Empty maps are left out of JSON (omitempty), as Go's encoder leaves them.
      if (Object.keys(def).length) item.default = def;
      if (Object.keys(req).length) item.defaultRequest = req;
    }
  },
};

/** SetDefaults_DeviceTaint: a taint is added now (to the second). */
function timeAdded(...taintLists: string[]): Conditional {
  return {
    replaces: taintLists.map((l) => `${l}/timeAdded`),
    after(obj, _sent, _gvk, now) {
      for (const l of taintLists) {
        const steps = l.split('/').map(parseStep);
        let here: Obj[] = [obj];
        for (const step of steps) here = here.flatMap((v) => descend(v, step, false));
        for (const t of here) if (unset(t.timeAdded, false)) t.timeAdded = now;
      }
    },
  };
}

const CONDITIONAL: Record<string, Conditional[]> = {
  ...Object.fromEntries(Object.keys(POD_SPEC_PATHS).map((k) => [k, [podSpecConditional(k)]])),
  '/Service': [serviceFromOtherFields],
  '/Namespace': [namespaceNameLabel],
  '/LimitRange': [limitRangeDefaults],
  'networking.k8s.io/NetworkPolicy': [networkPolicyTypes],
  'extensions/NetworkPolicy': [networkPolicyTypes],
};
CONDITIONAL['batch/Job'].push(jobFromOtherFields);
CONDITIONAL['apps/Deployment'].push(rollingUpdate('strategy', false));
CONDITIONAL['apps/DaemonSet'].push(rollingUpdate('updateStrategy', false));
CONDITIONAL['apps/StatefulSet'].push(rollingUpdate('updateStrategy', true));
CONDITIONAL['apiextensions.k8s.io/CustomResourceDefinition'] = [crdFromOtherFields];
CONDITIONAL['resource.k8s.io/ResourceSlice'] = [timeAdded('spec!/devices[]/taints[]')];
CONDITIONAL['resource.k8s.io/DeviceTaintRule'] = [timeAdded('spec!/taint')];
