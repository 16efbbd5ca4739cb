/**
 * What the Service REST storage (kubernetes `pkg/registry/core/service/storage`) does around the
 * strategy: an update that leaves out the allocated `clusterIP`/`clusterIPs` or a port's
 * `nodePort` keeps the allocated ones (`patchAllocatedValues`, `normalizeClusterIPs`), NodePort and
 * LoadBalancer Services get node ports from the service node port range (30000–32767) unless they
 * name one, and the validation of `ValidateService`/`ValidateServiceUpdate` this cluster needs:
 * ports are required (unless headless or ExternalName), node ports lie in the range, and allocated
 * cluster IPs may not change.
 */
import type { FieldError } from '../apimachinery/errors';
import { RawValue, fieldForbidden, fieldInvalid, fieldRequired } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;

/** kube-apiserver's default `--service-node-port-range`. */
export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

const spec = (o: KubeObject | undefined): Obj => (o && isObject(o.spec) ? o.spec : {});
const ports = (s: Obj): Obj[] => (Array.isArray(s.ports) ? s.ports.filter(isObject) : []);
const ips = (s: Obj): string[] =>
  Array.isArray(s.clusterIPs) ? s.clusterIPs.filter((x): x is string => typeof x === 'string') : [];
const needsNodePort = (s: Obj) => s.type === 'NodePort' || s.type === 'LoadBalancer';
const needsClusterIP = (s: Obj) => s.type !== 'ExternalName';
const headless = (s: Obj) => s.clusterIP === 'None';

/**
 * Before defaulting an update: what the client left out of what was allocated is kept, so that
 * defaulting does not allocate anew.
 */
export function keepAllocated(next: KubeObject, old: KubeObject): void {
  const n = spec(next);
  const o = spec(old);
  if (needsClusterIP(o) && needsClusterIP(n)) {
    if (n.clusterIP === undefined || n.clusterIP === '') {
      if (o.clusterIP !== undefined) n.clusterIP = o.clusterIP;
      if (ips(n).length === 0 && ips(o).length) n.clusterIPs = [...ips(o)];
    }
  }
  // The allocator keeps the families it chose when an update leaves them out.
  if (needsClusterIP(o) && needsClusterIP(n)) {
    for (const f of ['ipFamilies', 'ipFamilyPolicy'])
      if (n[f] === undefined && o[f] !== undefined) n[f] = structuredClone(o[f]);
  }
  // normalizeClusterIPs: an old client sends clusterIP alone.
  if (typeof n.clusterIP === 'string' && n.clusterIP && ips(n).length === 0)
    n.clusterIPs = n.clusterIP === o.clusterIP && ips(o).length ? [...ips(o)] : [n.clusterIP];
  if (needsNodePort(o) && needsNodePort(n)) {
    const byName = new Map(ports(o).map((p) => [String(p.name ?? ''), p.nodePort]));
    const inNew = new Set(ports(n).map((p) => p.nodePort));
    for (const p of ports(n)) {
      if (p.nodePort) continue;
      const was = byName.get(String(p.name ?? ''));
      if (typeof was === 'number' && !inNew.has(was)) p.nodePort = was;
    }
  }
}

/**
 * Gives each port of a NodePort or LoadBalancer Service that has none a free node port, at
 * random in the range as the allocator does; `others` are the cluster's other Services.
 */
export function allocateNodePorts(
  svc: KubeObject,
  others: Iterable<KubeObject>,
  random: () => number = Math.random,
): void {
  const s = spec(svc);
  if (!needsNodePort(s)) return;
  const used = new Set<unknown>();
  for (const o of others)
    if (o.metadata.uid !== svc.metadata.uid) for (const p of ports(spec(o))) used.add(p.nodePort);
  for (const p of ports(s)) used.add(p.nodePort);
  const size = NODE_PORT_MAX - NODE_PORT_MIN + 1;
  for (const p of ports(s)) {
    if (p.nodePort) continue;
    // A random start, then the next free one (the allocator's random scan).
    const start = Math.floor(random() * size);
    for (let i = 0; i < size; i++) {
      const port = NODE_PORT_MIN + ((start + i) % size);
      if (!used.has(port)) {
        p.nodePort = port;
        used.add(port);
        break;
      }
    }
  }
}

/** `[]string{"10.96.0.10"}`: Go's %#v of a clusterIPs value. */
function goStrings(v: string[]): RawValue {
  return new RawValue(`[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`);
}

/** The parts of ValidateService (and, given `old`, ValidateServiceUpdate) the cluster checks. */
/** IsValidPortNum's message. */
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

export function validateService(svc: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const s = spec(svc);
  if (ports(s).length === 0 && !headless(s) && s.type !== 'ExternalName')
    errs.push(fieldRequired('spec.ports'));
  // validateServicePort: the port, then a numeric targetPort, each a valid port number.
  ports(s).forEach((p, i) => {
    for (const [field, n] of [
      ['port', p.port],
      ['targetPort', p.targetPort],
    ] as const) {
      if (typeof n === 'number' && (n < 1 || n > 65535))
        errs.push(fieldInvalid(`spec.ports[${i}].${field}`, n, PORT_RANGE));
    }
  });
  ports(s).forEach((p, i) => {
    if (p.nodePort === undefined || p.nodePort === 0) return;
    const np = p.nodePort as number;
    if (!needsNodePort(s))
      errs.push(
        fieldForbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"),
      );
    else if (np < NODE_PORT_MIN || np > NODE_PORT_MAX)
      errs.push(
        fieldInvalid(
          `spec.ports[${i}].nodePort`,
          np,
          `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_MIN}-${NODE_PORT_MAX}`,
        ),
      );
  });
  if (old) {
    // validateUpgradeDowngradeClusterIPs (single-stack here).
    const o = spec(old);
    if (s.type === 'ExternalName' || o.type === 'ExternalName') return errs;
    if (headless(s) && headless(o)) return errs;
    const was = ips(o);
    const now = ips(s);
    if (was.length && now.length === 0)
      errs.push(
        fieldInvalid('spec.clusterIPs[0]', goStrings(now), 'primary clusterIP can not be unset'),
      );
    else if (was.length && now[0] !== was[0])
      errs.push(fieldInvalid('spec.clusterIPs[0]', goStrings(now), 'may not change once set'));
  }
  return errs;
}
