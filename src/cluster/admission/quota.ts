/**
 * ResourceQuota: the admission plugin (refuses a create that would exceed a quota, with the
 * apiserver's `exceeded quota: ...` and `must specify ...` messages) and the quota controller
 * that keeps `status.hard` / `status.used` current. Usage is computed from the store at admission
 * time, so concurrent creates cannot slip past a quota.
 */
import type { AdmissionPlugin } from './admission';
import { clone } from '../apimachinery/clone';
import type { ControllerHost } from '../controllers/controllerhost';
import { isEmpty, storedResources, typeRefOf } from '../controllers/controllerhost';
import { StatusError, newForbidden, type GroupResource } from '../apimachinery/errors';
import { deepEqual } from '../apimachinery/patch';
import { formatQuantity, parseQuantity, parseQuantityFull } from '../apimachinery/quantity';
import type { QuantityFormat } from '../apimachinery/quantity';
import type { ResourceType } from '../registry/registry';
import type { KubeObject } from '../apimachinery/types';
import { WorkQueue } from '../controllers/workqueue';
import { rec } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;
type Usage = Map<string, number>;

const QUOTA_STORAGE = '/resourcequotas';
const QUOTA = { apiVersion: 'v1', kind: 'ResourceQuota' };
/** Resources that each container must declare when a quota limits them. */
const POD_COMPUTE = [
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
  'cpu',
  'memory',
];
/** Legacy object-count names of core resources. */
const LEGACY_COUNT: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  resourcequotas: 'resourcequotas',
  replicationcontrollers: 'replicationcontrollers',
  persistentvolumeclaims: 'persistentvolumeclaims',
};

function countName(t: ResourceType): string {
  return t.info.group ? `count/${t.info.plural}.${t.info.group}` : `count/${t.info.plural}`;
}

/**
 * The name a quota counts objects of a resource by: the legacy name of a core resource that has
 * one (`pods`, `configmaps`, …), else the generic `count/<resource>[.<group>]`.
 */
export function objectCountName(group: string, resource: string): string {
  if (!group && LEGACY_COUNT[resource]) return LEGACY_COUNT[resource];
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/**
 * The admission plugin's refusal (resourcequota/controller.go, checkRequest): a 403 Forbidden on
 * the object, `exceeded quota: NAME, requested: …, used: …, limited: …`, each list only the
 * resources that went over, as `name=quantity` sorted by name.
 */
export function newExceededQuota(
  gr: GroupResource,
  name: string,
  quota: string,
  requested: string,
  used: string,
  limited: string,
): StatusError {
  return newForbidden(
    gr,
    name,
    `exceeded quota: ${quota}, requested: ${requested}, used: ${used}, limited: ${limited}`,
  );
}

function isTerminalPod(o: KubeObject): boolean {
  const phase = rec(o.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** What one object uses, by quota resource name. */
export function usageOf(t: ResourceType, o: KubeObject): Usage {
  const u: Usage = new Map();
  if (t.info.kind === 'Pod' && !t.info.group) {
    if (isTerminalPod(o)) return u;
    u.set('pods', 1);
    u.set('count/pods', 1);
    const spec = rec(o.spec);
    const sum = (list: unknown, kind: 'requests' | 'limits', r: string): number => {
      let s = 0;
      for (const c of Array.isArray(list) ? list : [])
        s += parseQuantity(rec(rec(rec(c).resources)[kind])[r]) ?? 0;
      return s;
    };
    const max = (list: unknown, kind: 'requests' | 'limits', r: string): number => {
      let m = 0;
      for (const c of Array.isArray(list) ? list : [])
        m = Math.max(m, parseQuantity(rec(rec(rec(c).resources)[kind])[r]) ?? 0);
      return m;
    };
    for (const kind of ['requests', 'limits'] as const) {
      for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
        const v = Math.max(sum(spec.containers, kind, r), max(spec.initContainers, kind, r));
        if (v) u.set(`${kind}.${r}`, v);
      }
    }
    if (u.has('requests.cpu')) u.set('cpu', u.get('requests.cpu')!);
    if (u.has('requests.memory')) u.set('memory', u.get('requests.memory')!);
    return u;
  }
  u.set(countName(t), 1);
  const legacy = !t.info.group ? LEGACY_COUNT[t.info.plural] : undefined;
  if (legacy) u.set(legacy, 1);
  if (t.info.kind === 'Service' && !t.info.group) {
    const type = rec(o.spec).type;
    if (type === 'LoadBalancer') u.set('services.loadbalancers', 1);
    if (type === 'NodePort') u.set('services.nodeports', 1);
  }
  return u;
}

/** Current usage in a namespace of the resources a quota names. */
function namespaceUsage(cluster: ControllerHost, ns: string, names: string[]): Usage {
  const total: Usage = new Map(names.map((n) => [n, 0]));
  for (const t of storedResources(cluster)) {
    if (!t.info.namespaced) continue;
    const relevant = names.some(
      (n) =>
        n === countName(t) ||
        (t.info.kind === 'Pod' &&
          !t.info.group &&
          (n === 'pods' ||
            POD_COMPUTE.includes(n) ||
            n.startsWith('requests.') ||
            n.startsWith('limits.'))) ||
        (!t.info.group && LEGACY_COUNT[t.info.plural] === n) ||
        (t.info.kind === 'Service' && n.startsWith('services')),
    );
    if (!relevant) continue;
    for (const o of cluster.scan(typeRefOf(t), ns)) {
      for (const [k, v] of usageOf(t, o)) if (total.has(k)) total.set(k, total.get(k)! + v);
    }
  }
  return total;
}

function formats(hard: Obj): Map<string, QuantityFormat> {
  const m = new Map<string, QuantityFormat>();
  for (const [k, v] of Object.entries(hard)) m.set(k, parseQuantityFull(v)?.format ?? 'DecimalSI');
  return m;
}

function pretty(u: Usage, fmt: Map<string, QuantityFormat>): string {
  return [...u.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(u.get(k)!, fmt.get(k))}`)
    .join(',');
}

export function quotaAdmission(cluster: ControllerHost): AdmissionPlugin {
  return (a) => {
    if (a.operation !== 'CREATE' || !a.type.info.namespaced) return;
    const ns = a.object.metadata.namespace ?? 'default';
    const quotas = [...cluster.scan(QUOTA, ns)];
    if (!quotas.length) return;
    const requested = usageOf(a.type, a.object);
    if (!requested.size) return;
    const name = a.object.metadata.name ?? '';
    const charged: KubeObject[] = [];
    for (const q of quotas) {
      const hard = rec(rec(q.spec).hard);
      const names = Object.keys(hard);
      const fmt = formats(hard);
      if (a.type.info.kind === 'Pod' && !a.type.info.group) {
        const missing = new Map<string, string[]>();
        const constrained = names.filter((n) => POD_COMPUTE.includes(n));
        for (const c of Array.isArray(rec(a.object.spec).containers)
          ? (rec(a.object.spec).containers as Obj[])
          : []) {
          const res = rec(c.resources);
          for (const n of constrained) {
            const [kind, r] = n.includes('.') ? n.split('.') : ['requests', n];
            if (rec(res[kind])[r] === undefined)
              missing.set(n, [...(missing.get(n) ?? []), String(c.name)]);
          }
        }
        if (missing.size) {
          const msg = [...missing.keys()]
            .sort()
            .map((n) => `${n} for: ${missing.get(n)!.sort().join(',')}`)
            .join('; ');
          throw newForbidden(
            a.type.gr,
            name,
            `failed quota: ${q.metadata.name}: must specify ${msg}`,
          );
        }
      }
      const relevant = names.filter((n) => requested.has(n));
      if (!relevant.length) continue;
      const used = namespaceUsage(cluster, ns, relevant);
      const exceeded = relevant.filter(
        (n) => used.get(n)! + requested.get(n)! > (parseQuantity(hard[n]) ?? 0) + 1e-9,
      );
      if (exceeded.length) {
        const pick = (u: Usage) => new Map(exceeded.map((n) => [n, u.get(n) ?? 0]));
        const limited = new Map(exceeded.map((n) => [n, parseQuantity(hard[n]) ?? 0]));
        throw newExceededQuota(
          a.type.gr,
          name,
          q.metadata.name ?? '',
          pretty(pick(requested), fmt),
          pretty(pick(used), fmt),
          pretty(limited, fmt),
        );
      }
      const next = charge(q, relevant, used, requested, fmt);
      if (next) charged.push(next);
    }
    // As the plugin's evaluator does once every quota admits the request: each quota whose usage
    // the request changes gets it in status.used, written by kube-apiserver before the object is
    // stored (a dry run changes nothing).
    if (!a.dryRun) for (const next of charged) writeCharge(cluster, next);
  };
}

/**
 * The quota with `requested` added to its status.used, or undefined when nothing changes. Only
 * a quota the controller has observed (status.hard set) is charged: kube-apiserver refuses a
 * request against one it has not ("status unknown for quota"), where the fake admits from the
 * store and lets the controller write the first status.
 */
function charge(
  q: KubeObject,
  names: string[],
  used: Usage,
  requested: Usage,
  fmt: Map<string, QuantityFormat>,
): KubeObject | undefined {
  const status = rec(q.status);
  if (!Object.keys(rec(status.hard)).length) return undefined;
  const was = rec(status.used);
  const now: Obj = { ...was };
  for (const n of names)
    if (n in rec(status.hard))
      now[n] = formatQuantity(used.get(n)! + requested.get(n)!, fmt.get(n));
  if (deepEqual(was, now)) return undefined;
  const next = clone(q);
  next.status = { ...status, used: now };
  return next;
}

/** UpdateQuotaStatus through kube-apiserver's loopback client; a conflict leaves it to the controller. */
function writeCharge(cluster: ControllerHost, next: KubeObject): void {
  try {
    cluster.update(next, { subresource: 'status', fieldManager: 'kube-apiserver' });
  } catch (err) {
    if (!(err instanceof StatusError && (err.code === 409 || err.code === 404))) throw err;
  }
}

/** The resource quota controller: status.hard mirrors spec.hard, status.used is recomputed on change. */
export function startQuotaController(cluster: ControllerHost): () => void {
  const q = new WorkQueue('resourcequota-controller', cluster.clock, (ns) => sync(ns));
  function sync(ns: string): void {
    for (const quota of [...cluster.scan(QUOTA, ns)]) {
      const hard = rec(rec(quota.spec).hard);
      const fmt = formats(hard);
      const used = namespaceUsage(cluster, ns, Object.keys(hard));
      const status = {
        hard: { ...hard },
        used: Object.fromEntries([...used].map(([k, v]) => [k, formatQuantity(v, fmt.get(k))])),
      };
      if (deepEqual(quota.status, status)) continue;
      const next = clone(quota);
      next.status = status;
      try {
        cluster.update(next, { subresource: 'status', fieldManager: 'kube-controller-manager' });
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) q.addRateLimited(ns);
        else if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
  }
  const unsub = cluster.subscribe((c) => {
    const ns = c.object.metadata.namespace;
    if (!ns) return;
    if (c.storageKey === QUOTA_STORAGE) {
      if (c.type !== 'DELETED' && !deepEqual(rec(c.old?.spec).hard, rec(c.object.spec).hard))
        q.add(ns);
      else if (c.type === 'ADDED') q.add(ns);
      return;
    }
    if (
      c.type === 'MODIFIED' &&
      !(c.storageKey === '/pods' && rec(c.old?.status).phase !== rec(c.object.status).phase)
    )
      return;
    if (!isEmpty(cluster.scan(QUOTA, ns))) q.add(ns);
  });
  return () => {
    unsub();
    q.stop();
  };
}
