/**
 * The LimitRanger admission plugin (plugin/pkg/admission/limitranger): a namespace's LimitRanges
 * give each container of a new pod the default requests and limits it does not set (annotated
 * `kubernetes.io/limit-ranger`), then refuse a pod or a claim outside their min, max and
 * limit-to-request ratio with the plugin's 403. Pod updates are not checked (their containers'
 * resources cannot change), nor objects being deleted, nor subresources.
 *
 * Quantities are compared as the plugin compares them: in milli-units when all three fit, else in
 * units, each rounded up.
 */
import type { AdmissionAttributes, AdmissionPlugin, MutatingAdmissionPlugin } from './admission';
import type { ControllerHost } from '../controllers/controllerhost';
import { newForbidden } from '../apimachinery/errors';
import { goQuantityString, goScaledValue, parseGoQuantity } from '../apimachinery/goquantity';
import type { GoQuantity } from '../apimachinery/goquantity';
import { rec } from '../apimachinery/unstructured';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;
type ResourceList = Record<string, string>;

const LIMIT_RANGE = { apiVersion: 'v1', kind: 'LimitRange' };
const ANNOTATION = 'kubernetes.io/limit-ranger';
/** resource.MaxMilliValue: the largest value whose milli-value fits an int64. */
const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

/** The mutating half: default requests and limits of a new pod's containers. */
export function limitRangerDefaults(cluster: ControllerHost): MutatingAdmissionPlugin {
  return (a) => {
    if (!supports(a) || a.type.info.plural !== 'pods') return;
    for (const lr of limitRanges(cluster, a)) mergePodResources(a.object, lr);
  };
}

/** The validating half: min, max and ratio of a new pod's containers and pod, and of a claim. */
export function limitRangerValidation(cluster: ControllerHost): AdmissionPlugin {
  return (a) => {
    if (!supports(a)) return;
    for (const lr of limitRanges(cluster, a)) {
      const errs =
        a.type.info.plural === 'pods' ? podErrors(lr, a.object) : claimErrors(lr, a.object);
      if (errs.length)
        throw newForbidden(
          a.type.gr,
          a.object.metadata.name ?? '',
          errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`,
        );
    }
  };
}

/** SupportsAttributes and the plugin's handler: pod creates, claim creates and updates. */
function supports(a: AdmissionAttributes): boolean {
  if (a.type.info.group !== '' || a.subresource || a.operation === 'DELETE') return false;
  if (a.old?.metadata.deletionTimestamp) return false;
  const plural = a.type.info.plural;
  if (plural === 'pods') return a.operation === 'CREATE';
  return plural === 'persistentvolumeclaims';
}

function limitRanges(cluster: ControllerHost, a: AdmissionAttributes): KubeObject[] {
  return [...cluster.scan(LIMIT_RANGE, a.object.metadata.namespace ?? 'default')];
}

function limitsOf(lr: KubeObject): Obj[] {
  const limits = rec(lr.spec).limits;
  return Array.isArray(limits) ? (limits as Obj[]) : [];
}

function list(v: unknown): ResourceList {
  return rec(v) as ResourceList;
}

function containersOf(pod: KubeObject): Array<{ c: Obj; prefix: string }> {
  const spec = rec(pod.spec);
  const of = (key: string, prefix: string) =>
    (Array.isArray(spec[key]) ? (spec[key] as Obj[]) : []).map((c) => ({ c, prefix }));
  return [...of('containers', 'container'), ...of('initContainers', 'init container')];
}

/** defaultContainerResourceRequirements then mergePodResourceRequirements. */
function mergePodResources(pod: KubeObject, lr: KubeObject): void {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of limitsOf(lr)) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, list(item.defaultRequest));
    Object.assign(limits, list(item.default));
  }
  const notes: string[] = [];
  for (const { c, prefix } of containersOf(pod)) {
    const res = rec(c.resources);
    const setOn = (key: 'requests' | 'limits', defaults: ResourceList): string[] => {
      const current = list(res[key]);
      const set = Object.keys(defaults).filter((k) => current[k] === undefined);
      if (set.length)
        res[key] = { ...current, ...Object.fromEntries(set.map((k) => [k, defaults[k]!])) };
      return set.sort();
    };
    const setLimits = setOn('limits', limits);
    const setRequests = setOn('requests', requests);
    if (setLimits.length || setRequests.length) c.resources = res;
    if (setRequests.length)
      notes.push(`${setRequests.join(', ')} request for ${prefix} ${String(c.name)}`);
    if (setLimits.length)
      notes.push(`${setLimits.join(', ')} limit for ${prefix} ${String(c.name)}`);
  }
  if (notes.length)
    pod.metadata.annotations = {
      ...pod.metadata.annotations,
      [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}`,
    };
}

function podErrors(lr: KubeObject, pod: KubeObject): string[] {
  const errs: string[] = [];
  for (const item of limitsOf(lr)) {
    if (item.type === 'Container')
      for (const { c } of containersOf(pod)) {
        const res = rec(c.resources);
        errs.push(...constraintErrors('Container', item, list(res.requests), list(res.limits)));
      }
    if (item.type === 'Pod') {
      const [requests, limits] = podTotals(pod);
      errs.push(...constraintErrors('Pod', item, requests, limits));
    }
  }
  return errs;
}

function claimErrors(lr: KubeObject, claim: KubeObject): string[] {
  const request = list(rec(rec(claim.spec).resources).requests);
  const errs: Array<string | undefined> = [];
  for (const item of limitsOf(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    const check = (name: string, enforced: string): Check => ({
      type: 'PersistentVolumeClaim',
      name,
      enforced,
      request,
      limit: {},
    });
    for (const [k, v] of sorted(item.min)) errs.push(minConstraint(check(k, v)));
    for (const [k, v] of sorted(item.max)) errs.push(maxRequestConstraint(check(k, v)));
  }
  return errs.filter((e): e is string => e !== undefined);
}

/** Go ranges over a map in no fixed order; the fake takes resource names in sorted order. */
function sorted(v: unknown): Array<[string, string]> {
  return Object.entries(list(v)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One constraint of a LimitRange item on one resource, and what it is checked against. */
interface Check {
  /** The item's type (Container, Pod, PersistentVolumeClaim), as the messages name it. */
  type: string;
  name: string;
  enforced: string;
  request: ResourceList;
  limit: ResourceList;
}

function constraintErrors(
  type: string,
  item: Obj,
  request: ResourceList,
  limit: ResourceList,
): string[] {
  const checks = (v: unknown, f: (c: Check) => string | undefined) =>
    sorted(v).map(([name, enforced]) => f({ type, name, enforced, request, limit }));
  return [
    ...checks(item.min, minConstraint),
    ...checks(item.max, maxConstraint),
    ...checks(item.maxLimitRequestRatio, ratioConstraint),
  ].filter((e): e is string => e !== undefined);
}

const ZERO: GoQuantity = { value: 0n, scale: 0, s: '0', format: 'DecimalSI' };

function q(v: string | undefined): GoQuantity {
  return (v === undefined ? undefined : parseGoQuantity(v)) ?? ZERO;
}

const str = (v: string) => goQuantityString(q(v));

/** requestLimitEnforcedValues: milli-values when all three fit, else values. */
function compared({ name, enforced, request, limit }: Check): [bigint, bigint, bigint] {
  const all = [q(request[name]), q(limit[name]), q(enforced)];
  const values = all.map((x) => goScaledValue(x, 0));
  if (values.every((v) => v <= MAX_MILLI_VALUE))
    return all.map((x) => goScaledValue(x, -3)) as [bigint, bigint, bigint];
  return values as [bigint, bigint, bigint];
}

function minConstraint(c: Check): string | undefined {
  const { type, name, enforced, request, limit } = c;
  const [r, l, e] = compared(c);
  const head = `minimum ${name} usage per ${type} is ${str(enforced)}`;
  if (request[name] === undefined) return `${head}.  No request is specified`;
  if (r < e) return `${head}, but request is ${str(request[name])}`;
  if (limit[name] !== undefined && l < e) return `${head}, but limit is ${str(limit[name])}`;
  return undefined;
}

/** maxRequestConstraint: for claims, whose limits are not the user's input. */
function maxRequestConstraint(c: Check): string | undefined {
  const { type, name, enforced, request } = c;
  const [r, , e] = compared({ ...c, limit: {} });
  const head = `maximum ${name} usage per ${type} is ${str(enforced)}`;
  if (request[name] === undefined) return `${head}.  No request is specified`;
  if (r > e) return `${head}, but request is ${str(request[name])}`;
  return undefined;
}

function maxConstraint(c: Check): string | undefined {
  const { type, name, enforced, request, limit } = c;
  const [r, l, e] = compared(c);
  const head = `maximum ${name} usage per ${type} is ${str(enforced)}`;
  if (limit[name] === undefined) return `${head}.  No limit is specified`;
  if (l > e) return `${head}, but limit is ${str(limit[name])}`;
  if (request[name] !== undefined && r > e) return `${head}, but request is ${str(request[name])}`;
  return undefined;
}

function ratioConstraint(c: Check): string | undefined {
  const { type, name, enforced, request, limit } = c;
  const [r, l] = compared(c);
  const head = `${name} max limit to request ratio per ${type} is ${str(enforced)}`;
  if (request[name] === undefined || r === 0n)
    return `${head}, but no request is specified or request is 0`;
  if (limit[name] === undefined || l === 0n)
    return `${head}, but no limit is specified or limit is 0`;
  const shown = Number(l) / Number(r);
  const e = q(enforced);
  const milli = goScaledValue(e, 0) <= MAX_MILLI_VALUE;
  const observed = milli ? shown * 1000 : shown;
  const max = Number(milli ? goScaledValue(e, -3) : goScaledValue(e, 0));
  if (observed > max) return `${head}, but provided ratio is ${shown.toFixed(6)}`;
  return undefined;
}

/**
 * podRequests and podLimits: the containers' sums, each init container's max taken over them.
 * Simpler than the plugin's: restartable (sidecar) init containers are not added to the sum, and
 * pod-level resources (PodLevelResources) are not read.
 */
function podTotals(pod: KubeObject): [ResourceList, ResourceList] {
  const spec = rec(pod.spec);
  const sum = (key: 'requests' | 'limits'): ResourceList => {
    const total = new Map<string, bigint>();
    for (const c of Array.isArray(spec.containers) ? (spec.containers as Obj[]) : [])
      for (const [k, v] of Object.entries(list(rec(c.resources)[key])))
        total.set(k, (total.get(k) ?? 0n) + goScaledValue(q(v), -9));
    for (const c of Array.isArray(spec.initContainers) ? (spec.initContainers as Obj[]) : [])
      for (const [k, v] of Object.entries(list(rec(c.resources)[key]))) {
        const n = goScaledValue(q(v), -9);
        if (n > (total.get(k) ?? 0n)) total.set(k, n);
      }
    return Object.fromEntries([...total].map(([k, n]) => [k, `${n}n`]));
  };
  return [sum('requests'), sum('limits')];
}
