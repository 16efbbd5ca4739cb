/**
 * Server-side printing (meta.k8s.io/v1 Table), what `kubectl get` asks for: the usual columns of
 * the built-in kinds, and a CRD's additionalPrinterColumns for custom resources.
 */
import { evalJsonPath } from '../apimachinery/jsonpath';
import { isObject } from '../apimachinery/patch';
import type { PrinterColumn, ResourceType } from '../registry/registry';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (o: KubeObject, now: number) => unknown;
}

function rec(v: unknown): Obj {
  return isObject(v) ? v : {};
}
function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** duration.HumanDuration, as kubectl prints ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(ts: unknown, now: number): string {
  if (typeof ts !== 'string') return '<unknown>';
  return humanDuration(now - Date.parse(ts));
}

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
  cell: (o) => o.metadata.name ?? '',
};
const AGE: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};

function col(name: string, cell: Column['cell'], type = 'string', priority = 0): Column {
  return { name, type, format: '', description: name, priority, cell };
}

function podReady(o: KubeObject): string {
  const cs = Array.isArray(rec(o.status).containerStatuses)
    ? (rec(o.status).containerStatuses as Obj[])
    : [];
  const total = Array.isArray(rec(o.spec).containers)
    ? (rec(o.spec).containers as unknown[]).length
    : 0;
  return `${cs.filter((c) => c.ready).length}/${total}`;
}

function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp) return 'Terminating';
  const st = rec(o.status);
  const cs = Array.isArray(st.containerStatuses) ? (st.containerStatuses as Obj[]) : [];
  for (const c of cs) {
    const w = rec(rec(c.state).waiting);
    if (w.reason) return String(w.reason);
  }
  return String(st.reason ?? st.phase ?? 'Unknown');
}

/** The -o wide columns kubectl shows for every pod-template workload (Deployment, ReplicaSet). */
const WORKLOAD_WIDE: Column[] = [
  col(
    'Containers',
    (o) =>
      containers(o)
        .map((c) => c.name)
        .join(','),
    'string',
    1,
  ),
  col(
    'Images',
    (o) =>
      containers(o)
        .map((c) => c.image)
        .join(','),
    'string',
    1,
  ),
  col('Selector', (o) => selector(o), 'string', 1),
];

const BUILTIN_COLUMNS: Record<string, Column[]> = {
  '/Pod': [
    NAME,
    col('Ready', podReady),
    col('Status', podStatus),
    col(
      'Restarts',
      (o) =>
        Array.isArray(rec(o.status).containerStatuses)
          ? (rec(o.status).containerStatuses as Obj[]).reduce((s, c) => s + num(c.restartCount), 0)
          : 0,
      'string',
    ),
    AGE,
    col('IP', (o) => rec(o.status).podIP ?? '<none>', 'string', 1),
    col('Node', (o) => rec(o.spec).nodeName ?? '<none>', 'string', 1),
  ],
  'apps/Deployment': [
    NAME,
    col('Ready', (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas)}`),
    col('Up-to-date', (o) => num(rec(o.status).updatedReplicas), 'integer'),
    col('Available', (o) => num(rec(o.status).availableReplicas), 'integer'),
    AGE,
    ...WORKLOAD_WIDE,
  ],
  'apps/ReplicaSet': [
    NAME,
    col('Desired', (o) => num(rec(o.spec).replicas), 'integer'),
    col('Current', (o) => num(rec(o.status).replicas), 'integer'),
    col('Ready', (o) => num(rec(o.status).readyReplicas), 'integer'),
    AGE,
    ...WORKLOAD_WIDE,
  ],
  '/Node': [
    NAME,
    col('Status', (o) => {
      const ready = (
        Array.isArray(rec(o.status).conditions) ? (rec(o.status).conditions as Obj[]) : []
      ).find((c) => c.type === 'Ready');
      return ready?.status === 'True' ? 'Ready' : 'NotReady';
    }),
    col(
      'Roles',
      (o) =>
        Object.keys(o.metadata.labels ?? {})
          .filter((k) => k.startsWith('node-role.kubernetes.io/'))
          .map((k) => k.slice('node-role.kubernetes.io/'.length))
          .join(',') || '<none>',
    ),
    AGE,
    col('Version', (o) => rec(rec(o.status).nodeInfo).kubeletVersion ?? ''),
    col(
      'Internal-IP',
      (o) =>
        ((rec(o.status).addresses as Obj[] | undefined) ?? []).find((a) => a.type === 'InternalIP')
          ?.address ?? '<none>',
      'string',
      1,
    ),
  ],
  'policy/PodDisruptionBudget': [
    NAME,
    col('Min Available', (o) => String(rec(o.spec).minAvailable ?? 'N/A')),
    col('Max Unavailable', (o) => String(rec(o.spec).maxUnavailable ?? 'N/A')),
    col('Allowed Disruptions', (o) => num(rec(o.status).disruptionsAllowed), 'integer'),
    AGE,
  ],
  '/Namespace': [NAME, col('Status', (o) => rec(o.status).phase ?? ''), AGE],
  '/ConfigMap': [
    NAME,
    col(
      'Data',
      (o) => Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length,
      'integer',
    ),
    AGE,
  ],
  '/Secret': [
    NAME,
    col('Type', (o) => o.type ?? ''),
    col('Data', (o) => Object.keys(rec(o.data)).length, 'integer'),
    AGE,
  ],
  '/ServiceAccount': [
    NAME,
    col('Secrets', (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0), 'integer'),
    AGE,
  ],
  '/Service': [
    NAME,
    col('Type', (o) => rec(o.spec).type ?? ''),
    col('Cluster-IP', (o) => rec(o.spec).clusterIP ?? '<none>'),
    col('External-IP', () => '<none>'),
    col(
      'Port(s)',
      (o) =>
        (Array.isArray(rec(o.spec).ports) ? (rec(o.spec).ports as Obj[]) : [])
          .map((p) => `${String(p.port)}/${String(p.protocol ?? 'TCP')}`)
          .join(',') || '<none>',
    ),
    AGE,
  ],
  '/Event': [
    col('Last Seen', (o, now) =>
      age(o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp, now),
    ),
    col('Type', (o) => o.type ?? ''),
    col('Reason', (o) => o.reason ?? ''),
    col(
      'Object',
      (o) =>
        `${String(rec(o.involvedObject).kind ?? '').toLowerCase()}/${String(rec(o.involvedObject).name ?? '')}`,
    ),
    col('Message', (o) => o.message ?? ''),
  ],
  '/ResourceQuota': [
    NAME,
    AGE,
    col('Request', (o) => quotaCells(o, false)),
    col('Limit', (o) => quotaCells(o, true)),
  ],
  'apiextensions.k8s.io/CustomResourceDefinition': [
    NAME,
    col('Created At', (o) => o.metadata.creationTimestamp ?? '', 'date'),
  ],
};

function quotaCells(o: KubeObject, limits: boolean): string {
  const hard = rec(rec(o.status).hard);
  const used = rec(rec(o.status).used);
  return Object.keys(hard)
    .filter((k) => k.startsWith('limits.') === limits)
    .sort()
    .map((k) => `${k}: ${String(used[k] ?? '0')}/${String(hard[k])}`)
    .join(', ');
}

function containers(o: KubeObject): Obj[] {
  const c = rec(rec(rec(o.spec).template).spec).containers;
  return Array.isArray(c) ? (c as Obj[]) : [];
}

function selector(o: KubeObject): string {
  const ml = rec(rec(rec(o.spec).selector).matchLabels);
  return Object.entries(ml)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

function printerColumn(c: PrinterColumn): Column {
  return {
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description ?? '',
    priority: c.priority ?? 0,
    cell: (o, now) => {
      const vals = evalJsonPath(o, c.jsonPath);
      if (!vals.length || vals[0] === null) return null;
      const v = vals[0];
      if (c.type === 'date') return typeof v === 'string' ? age(v, now) : null;
      if (isObject(v) || Array.isArray(v)) return JSON.stringify(v);
      return v;
    },
  };
}

export function columnsFor(t: ResourceType): Column[] {
  if (t.crd) {
    const cols = t.printerColumns ?? [];
    if (!cols.length) return [NAME, AGE];
    return [NAME, ...cols.map(printerColumn)];
  }
  return BUILTIN_COLUMNS[`${t.info.group}/${t.info.kind}`] ?? [NAME, AGE];
}

export function toTable(
  t: ResourceType,
  objects: KubeObject[],
  now: number,
  opts: {
    resourceVersion?: string;
    continue?: string;
    includeObject?: string;
    noHeaders?: boolean;
  },
): Obj {
  const cols = columnsFor(t);
  const include = opts.includeObject ?? 'PartialObjectMetadata';
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: {
      resourceVersion: opts.resourceVersion ?? '',
      ...(opts.continue ? { continue: opts.continue } : {}),
    },
    columnDefinitions: opts.noHeaders
      ? []
      : cols.map(({ name, type, format, description, priority }) => ({
          name,
          type,
          format,
          description,
          priority,
        })),
    rows: objects.map((o) => ({
      cells: cols.map((c) => c.cell(o, now)),
      object:
        include === 'None'
          ? null
          : include === 'Object'
            ? o
            : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
