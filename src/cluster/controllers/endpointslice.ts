/**
 * The EndpointSlice controller (kube-controller-manager's endpointslice-controller) for Services
 * with a selector: one slice per address type of the Service's ipFamilies, named
 * `<service>-<random>`, owned by the Service and labelled kubernetes.io/service-name and
 * endpointslice.kubernetes.io/managed-by (with the Service's own labels, and service.kubernetes.io/headless
 * for a headless one); an endpoint per selected pod that has an IP (ready, serving and terminating
 * conditions, targetRef, nodeName, hostname for a pod of the Service's subdomain), the Service's
 * ports resolved against each pod's container ports, and the placeholder slice (no endpoints, no
 * ports) while nothing is selected. Not modelled: the 100-endpoint split, topology hints and
 * trafficDistribution, the legacy Endpoints object.
 */
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { controllerOf, newControllerRef } from '../apimachinery/controllerref';
import { StatusError } from '../apimachinery/errors';
import { deepEqual } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { isPodReady } from './replicaset';
import { WorkQueue } from './workqueue';
import { rec } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;
const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const SLICE = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };
const CONTROLLER = 'endpointslice-controller.k8s.io';
const SERVICE_NAME = 'kubernetes.io/service-name';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const HEADLESS = 'service.kubernetes.io/headless';
const TRIGGER = 'endpoints.kubernetes.io/last-change-trigger-time';
const MANAGER = { fieldManager: 'kube-controller-manager' };

/** ShouldPodBeInEndpoints (terminating pods included): it has an IP and has not finished. */
function inEndpoints(pod: KubeObject): boolean {
  const status = rec(pod.status);
  const ips = Array.isArray(status.podIPs) ? status.podIPs : [];
  if (!status.podIP && !ips.length) return false;
  const restart = rec(pod.spec).restartPolicy;
  if (restart === 'Never') return status.phase !== 'Failed' && status.phase !== 'Succeeded';
  if (restart === 'OnFailure') return status.phase !== 'Succeeded';
  return true;
}

/** FindPort: the pod's port for a Service port (a named targetPort looked up in its containers). */
function findPort(pod: KubeObject, sp: Obj): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  for (const c of (rec(pod.spec).containers as Obj[] | undefined) ?? [])
    for (const p of (c.ports as Obj[] | undefined) ?? [])
      if (p.name === target && (p.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'))
        return Number(p.containerPort);
  return undefined;
}

/** getEndpointPorts. */
function endpointPorts(svc: KubeObject, pod: KubeObject): Obj[] {
  const spec = rec(svc.spec);
  const ports = Array.isArray(spec.ports) ? (spec.ports as Obj[]) : [];
  const out: Obj[] = [];
  for (const sp of ports) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({
      name: sp.name ?? '',
      port,
      protocol: sp.protocol ?? 'TCP',
      ...(sp.appProtocol !== undefined ? { appProtocol: sp.appProtocol } : {}),
    });
  }
  return out;
}

const isIPv6 = (ip: string) => ip.includes(':');

/** podToEndpoint. */
function podToEndpoint(
  svc: KubeObject,
  pod: KubeObject,
  node: KubeObject | undefined,
  addressType: string,
): Obj {
  const serving = isPodReady(pod);
  const terminating = Boolean(pod.metadata.deletionTimestamp);
  const ready = rec(svc.spec).publishNotReadyAddresses === true || (serving && !terminating);
  const status = rec(pod.status);
  const ips = (Array.isArray(status.podIPs) ? (status.podIPs as Obj[]) : []).map((i) =>
    String(i.ip),
  );
  const spec = rec(pod.spec);
  const zone = node?.metadata.labels?.['topology.kubernetes.io/zone'];
  return {
    addresses: ips.filter((ip) => isIPv6(ip) === (addressType === 'IPv6')),
    conditions: { ready, serving, terminating },
    ...(spec.hostname && spec.subdomain === svc.metadata.name ? { hostname: spec.hostname } : {}),
    targetRef: {
      kind: 'Pod',
      namespace: pod.metadata.namespace,
      name: pod.metadata.name,
      uid: pod.metadata.uid,
    },
    ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    ...(zone ? { zone } : {}),
  };
}

function selects(selector: Record<string, string>, pod: KubeObject): boolean {
  return Object.entries(selector).every(([k, v]) => pod.metadata.labels?.[k] === v);
}

/** setEndpointSliceLabels: the Service's labels (reserved keys aside) and the controller's. */
function sliceLabels(svc: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {}))
    if (![SERVICE_NAME, MANAGED_BY, HEADLESS].includes(k)) out[k] = v;
  const ip = rec(svc.spec).clusterIP;
  if (!ip || ip === 'None') out[HEADLESS] = '';
  out[SERVICE_NAME] = svc.metadata.name!;
  out[MANAGED_BY] = CONTROLLER;
  return out;
}

export function startEndpointSliceController(cluster: ControllerHost): () => void {
  const q = new WorkQueue('endpointslice-controller', cluster.clock, (key) => sync(key));
  /** The Services synced before: the first sync's trigger time is the Service's creation. */
  const seen = new Set<string>();

  function slicesOf(svc: KubeObject): KubeObject[] {
    const out: KubeObject[] = [];
    for (const s of cluster.scan(SLICE, svc.metadata.namespace))
      if (
        s.metadata.labels?.[SERVICE_NAME] === svc.metadata.name &&
        s.metadata.labels?.[MANAGED_BY] === CONTROLLER
      )
        out.push(s);
    return out;
  }

  function sync(key: string): void {
    const [ns, name] = key.split('/');
    const svc = cluster.peek(SERVICE, { namespace: ns, name });
    if (!svc) {
      seen.delete(key);
      return;
    }
    const spec = rec(svc.spec);
    const selector = rec(spec.selector) as Record<string, string>;
    // A Service without a selector has slices its owner manages; an ExternalName none.
    if (!Object.keys(selector).length || spec.type === 'ExternalName') return;
    const trigger = seen.has(key)
      ? cluster.now()
      : String(svc.metadata.creationTimestamp ?? cluster.now());
    seen.add(key);
    const families = Array.isArray(spec.ipFamilies) ? (spec.ipFamilies as string[]) : ['IPv4'];
    const pods = [...cluster.scan(POD, ns)].filter((p) => selects(selector, p) && inEndpoints(p));
    const existing = slicesOf(svc);
    const keep = new Set<string>();
    for (const addressType of families.length ? families : ['IPv4']) {
      const endpoints: Obj[] = [];
      let ports: Obj[] | undefined;
      for (const p of pods) {
        const node = rec(p.spec).nodeName
          ? cluster.peek(NODE, { name: String(rec(p.spec).nodeName) })
          : undefined;
        const ep = podToEndpoint(svc, p, node, addressType);
        if (!(ep.addresses as string[]).length) continue;
        endpoints.push(ep);
        ports ??= endpointPorts(svc, p);
      }
      const current = existing.find(
        (s) => s.addressType === addressType && controllerOf(s)?.uid === svc.metadata.uid,
      );
      const desired = {
        labels: sliceLabels(svc),
        endpoints: endpoints.length ? endpoints : null,
        ports: ports?.length ? ports : null,
      };
      if (current) {
        keep.add(current.metadata.name!);
        if (
          deepEqual(current.metadata.labels, desired.labels) &&
          deepEqual(current.endpoints ?? null, desired.endpoints) &&
          deepEqual(current.ports ?? null, desired.ports)
        )
          continue;
        const next = clone(current);
        next.metadata.labels = desired.labels;
        next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [TRIGGER]: trigger };
        next.endpoints = desired.endpoints;
        next.ports = desired.ports;
        write(key, () => cluster.update(next, MANAGER));
        continue;
      }
      if (svc.metadata.deletionTimestamp) continue;
      write(key, () =>
        cluster.create(
          {
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: {
              generateName: `${svc.metadata.name}-`,
              namespace: ns,
              labels: desired.labels,
              annotations: { [TRIGGER]: trigger },
              ownerReferences: [newControllerRef(svc, 'v1', 'Service')],
            },
            addressType,
            endpoints: desired.endpoints,
            ports: desired.ports,
          },
          MANAGER,
        ),
      );
    }
    // Slices of an address type the Service no longer has go.
    for (const s of existing)
      if (!keep.has(s.metadata.name!) && controllerOf(s)?.uid === svc.metadata.uid)
        if (!families.includes(String(s.addressType)))
          write(key, () => cluster.delete(SLICE, { namespace: ns, name: s.metadata.name! }));
  }

  function write(key: string, fn: () => unknown): void {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      if (err.code === 404) return;
      if (err.message.includes('because it is being terminated')) return;
      q.addRateLimited(key);
    }
  }

  /** The Services whose selector a pod's labels (now or before) match. */
  function servicesFor(pod: KubeObject, old?: KubeObject): void {
    for (const svc of cluster.scan(SERVICE, pod.metadata.namespace)) {
      const selector = rec(rec(svc.spec).selector) as Record<string, string>;
      if (!Object.keys(selector).length) continue;
      if (selects(selector, pod) || (old && selects(selector, old)))
        q.add(`${svc.metadata.namespace}/${svc.metadata.name}`);
    }
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === '/services') {
      const key = `${c.object.metadata.namespace}/${c.object.metadata.name}`;
      if (c.type === 'DELETED') seen.delete(key);
      else q.add(key);
      return;
    }
    if (c.storageKey === '/pods') return servicesFor(c.object, c.old);
    if (c.storageKey === 'discovery.k8s.io/endpointslices') {
      const svc = c.object.metadata.labels?.[SERVICE_NAME];
      if (svc && c.object.metadata.labels?.[MANAGED_BY] === CONTROLLER)
        q.add(`${c.object.metadata.namespace}/${svc}`);
    }
  });
  return () => {
    unsub();
    q.stop();
  };
}
