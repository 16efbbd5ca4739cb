/**
 * Server-side printing (meta.k8s.io/v1 Table), what `kubectl get` asks for: the usual columns of
 * the built-in kinds, and a CRD's additionalPrinterColumns for custom resources.
 */
import { controllerOf } from '../apimachinery/controllerref';
import { goQuantityString, parseGoQuantity } from '../apimachinery/goquantity';
import { evalJsonPath } from '../apimachinery/jsonpath';
import { isObject } from '../apimachinery/patch';
import type { PrinterColumn, ResourceType } from '../registry/registry';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';
import { readFileSync } from 'node:fs';
import { generatedFile } from '../api/apidata';
import { partialObjectMetadata } from './partialmetadata';

/**
 * generated/printcolumns.json: each built-in kind's columns as the release's printers.go declares
 * them (scripts/apigen-printcolumns.mjs). Their names, types, formats, priorities and
 * descriptions are those; the cells are the code below.
 */
interface ColumnDefinition {
  name: string;
  type: string;
  format: string;
  priority: number;
  description: string;
}

let printColumns: Record<string, ColumnDefinition[]> | undefined;

/** The release's column definitions of a built-in `group/Kind`, when printers.go has a handler. */
export function releaseColumns(groupKind: string): ColumnDefinition[] | undefined {
  printColumns ??= (
    JSON.parse(readFileSync(generatedFile('printcolumns.json'), 'utf8')) as {
      kinds: Record<string, ColumnDefinition[]>;
    }
  ).kinds;
  return printColumns[groupKind];
}

type Obj = Record<string, unknown>;

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
  cell: (o: KubeObject, now: number) => unknown;
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
const CREATION_TIMESTAMP =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
const AGE: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description: CREATION_TIMESTAMP,
  priority: 0,
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};
/** The default table convertor's second column (kinds printers.go has no handler for). */
const CREATED_AT: Column = {
  name: 'Created At',
  type: 'date',
  format: '',
  description: CREATION_TIMESTAMP,
  priority: 0,
  cell: (o) => o.metadata.creationTimestamp ?? null,
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

/**
 * printPod's STATUS (kubernetes pkg/printers/internalversion): the phase or the pod's reason, then
 * the last container (walking backwards) that is waiting or terminated names it — `Completed`
 * taken back to `Running`/`NotReady` while another container still runs, or to a failed
 * container's reason — and `Terminating` once deleted unless the phase is terminal. Init
 * containers are not modelled (the simulated kubelet runs none).
 */
function podStatus(o: KubeObject): string {
  const st = rec(o.status);
  const phase = String(st.phase ?? '');
  let reason = typeof st.reason === 'string' && st.reason ? st.reason : phase;
  const conditions = Array.isArray(st.conditions) ? (st.conditions as Obj[]) : [];
  if (conditions.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated'))
    reason = 'SchedulingGated';
  const cs = Array.isArray(st.containerStatuses) ? (st.containerStatuses as Obj[]) : [];
  let hasRunning = false;
  let errorReason = '';
  for (let i = cs.length - 1; i >= 0; i--) {
    const state = rec(cs[i].state);
    const waiting = rec(state.waiting);
    const terminated = isObject(state.terminated) ? state.terminated : undefined;
    if (typeof waiting.reason === 'string' && waiting.reason) reason = waiting.reason;
    else if (terminated) {
      if (typeof terminated.reason === 'string' && terminated.reason) reason = terminated.reason;
      else if (num(terminated.signal)) reason = `Signal:${num(terminated.signal)}`;
      else reason = `ExitCode:${num(terminated.exitCode)}`;
      if (num(terminated.exitCode)) errorReason = reason;
    } else if (cs[i].ready === true && isObject(state.running)) hasRunning = true;
  }
  if (reason === 'Completed') {
    const ready = conditions.some((c) => c.type === 'Ready' && c.status === 'True');
    if (hasRunning && ready) reason = 'Running';
    else if (errorReason) reason = errorReason;
    else if (hasRunning) reason = 'NotReady';
  }
  if (o.metadata.deletionTimestamp) {
    if (st.reason === 'NodeLost') reason = 'Unknown';
    else if (phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  }
  return reason;
}

function hasCondition(o: KubeObject, type: string): boolean {
  const conditions = rec(o.status).conditions;
  const c = (Array.isArray(conditions) ? (conditions as Obj[]) : []).find((x) => x.type === type);
  return c?.status === 'True';
}

/** printJob's STATUS. */
function jobStatus(o: KubeObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

/** printJob's COMPLETIONS. */
function jobCompletions(o: KubeObject): string {
  const spec = rec(o.spec);
  const succeeded = num(rec(o.status).succeeded);
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = num(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's DURATION: start to completion, or to now while it runs. */
function jobDuration(o: KubeObject, now: number): string {
  const st = rec(o.status);
  if (typeof st.startTime !== 'string') return '';
  const end = typeof st.completionTime === 'string' ? Date.parse(st.completionTime) : now;
  return humanDuration(end - Date.parse(st.startTime));
}

/**
 * The -o wide columns kubectl shows for a pod-template workload: its containers' names and
 * images, and its selector; `specOf` finds the spec holding `template` and `selector`.
 */
function wideOf(specOf: (o: KubeObject) => Obj = (o) => rec(o.spec)): Column[] {
  const containers = (o: KubeObject): Obj[] => {
    const c = rec(rec(specOf(o).template).spec).containers;
    return Array.isArray(c) ? (c as Obj[]) : [];
  };
  return [
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
    col('Selector', (o) => selector(specOf(o)), 'string', 1),
  ];
}

const WORKLOAD_WIDE: Column[] = wideOf();

/** printReplicaSet's and printReplicationController's counts: desired, current, ready. */
const REPLICA_COUNTS: Column[] = [
  col('Desired', (o) => num(rec(o.spec).replicas), 'integer'),
  col('Current', (o) => num(rec(o.status).replicas), 'integer'),
  col('Ready', (o) => num(rec(o.status).readyReplicas), 'integer'),
];

/** listWithMoreString: the first three, then how many more; `<unset>` for none. */
function listWithMore(all: string[], max = 3): string {
  const shown = all.slice(0, max).join(',');
  if (all.length > max) return `${shown} + ${all.length - max} more...`;
  return shown || '<unset>';
}

/** formatHosts: an Ingress's first three hosts (`*` when none has one), then how many rules more. */
function ingressHosts(rules: unknown): string {
  const list = Array.isArray(rules) ? (rules as Obj[]) : [];
  const hosts: string[] = [];
  let more = false;
  for (const r of list) {
    if (hosts.length === 3) more = true;
    if (!more && typeof r.host === 'string' && r.host) hosts.push(r.host);
  }
  if (!hosts.length) return '*';
  return more ? `${hosts.join(',')} + ${list.length - 3} more...` : hosts.join(',');
}

/** extractCSRStatus: Denied, Approved or Pending, then Failed and Issued. */
function csrCondition(o: KubeObject): string {
  const types = new Set(
    (Array.isArray(rec(o.status).conditions) ? (rec(o.status).conditions as Obj[]) : []).map(
      (c) => c.type,
    ),
  );
  let status = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) status += ',Failed';
  if (rec(o.status).certificate) status += ',Issued';
  return status;
}

/** labels.FormatLabels: a map's pairs sorted by key, `<none>` when empty. */
function formatLabels(m: unknown): string {
  return (
    Object.entries(rec(m))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',') || '<none>'
  );
}

/** The Name column of a kind with a default marker: ` (default)` after the default one's name. */
function withDefaultMark(name: Column, annotation: string): Column {
  return {
    ...name,
    cell: (o, now) =>
      o.metadata.annotations?.[annotation] === 'true'
        ? `${String(name.cell(o, now))} (default)`
        : name.cell(o, now),
  };
}

/** rbac.SubjectsStrings: a binding's users, groups and service accounts (`namespace/name`). */
function subjects(o: KubeObject, kind: string): string {
  const list = Array.isArray(o.subjects) ? (o.subjects as Obj[]) : [];
  return list
    .filter((s) => s.kind === kind)
    .map((s) =>
      kind === 'ServiceAccount' ? `${String(s.namespace ?? '')}/${String(s.name)}` : String(s.name),
    )
    .join(', ');
}

const BINDING_COLUMNS: Column[] = [
  NAME,
  col('Role', (o) => `${String(rec(o.roleRef).kind ?? '')}/${String(rec(o.roleRef).name ?? '')}`),
  AGE,
  col('Users', (o) => subjects(o, 'User'), 'string', 1),
  col('Groups', (o) => subjects(o, 'Group'), 'string', 1),
  col('ServiceAccounts', (o) => subjects(o, 'ServiceAccount'), 'string', 1),
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
  'batch/Job': [
    NAME,
    col('Status', jobStatus),
    col('Completions', jobCompletions),
    col('Duration', jobDuration),
    AGE,
    ...WORKLOAD_WIDE,
  ],
  'batch/CronJob': [
    NAME,
    col('Schedule', (o) => rec(o.spec).schedule ?? ''),
    col('Timezone', (o) => rec(o.spec).timeZone ?? '<none>'),
    col(
      'Suspend',
      (o) => {
        const v = rec(o.spec).suspend;
        return typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>';
      },
      'boolean',
    ),
    col(
      'Active',
      (o) => (Array.isArray(rec(o.status).active) ? (rec(o.status).active as unknown[]).length : 0),
      'integer',
    ),
    col('Last Schedule', (o, now) => {
      const t = rec(o.status).lastScheduleTime;
      return typeof t === 'string' ? age(t, now) : '<none>';
    }),
    AGE,
    ...wideOf((o) => rec(rec(rec(o.spec).jobTemplate).spec)),
  ],
  'apps/StatefulSet': [
    NAME,
    col('Ready', (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas)}`),
    AGE,
    ...WORKLOAD_WIDE.slice(0, 2),
  ],
  'apps/DaemonSet': [
    NAME,
    col('Desired', (o) => num(rec(o.status).desiredNumberScheduled), 'integer'),
    col('Current', (o) => num(rec(o.status).currentNumberScheduled), 'integer'),
    col('Ready', (o) => num(rec(o.status).numberReady), 'integer'),
    col('Up-to-date', (o) => num(rec(o.status).updatedNumberScheduled), 'integer'),
    col('Available', (o) => num(rec(o.status).numberAvailable), 'integer'),
    col(
      'Node Selector',
      (o) =>
        Object.entries(rec(rec(rec(rec(o.spec).template).spec).nodeSelector))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(',') || '<none>',
    ),
    AGE,
    ...WORKLOAD_WIDE,
  ],
  'apps/Deployment': [
    NAME,
    col('Ready', (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas)}`),
    col('Up-to-date', (o) => num(rec(o.status).updatedReplicas), 'integer'),
    col('Available', (o) => num(rec(o.status).availableReplicas), 'integer'),
    AGE,
    ...WORKLOAD_WIDE,
  ],
  'apps/ReplicaSet': [NAME, ...REPLICA_COUNTS, AGE, ...WORKLOAD_WIDE],
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
  '/ServiceAccount': [NAME, AGE],
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
    col('Selector', (o) => formatLabels(rec(o.spec).selector), 'string', 1),
  ],
  '/Event': [
    col('Last Seen', eventLastSeen),
    col('Type', (o) => o.type ?? ''),
    col('Reason', (o) => o.reason ?? ''),
    col('Object', (o) => {
      const involved = rec(o.involvedObject);
      const kind = String(involved.kind ?? '').toLowerCase();
      return involved.name ? `${kind}/${String(involved.name)}` : kind;
    }),
    col('Subobject', (o) => rec(o.involvedObject).fieldPath ?? '', 'string', 1),
    col('Source', eventSource, 'string', 1),
    col('Message', (o) => String(o.message ?? '').trim()),
    col('First Seen', eventFirstSeen, 'string', 1),
    col(
      'Count',
      (o) => (isObject(o.series) ? num(o.series.count) : num(o.count) || 1),
      'string',
      1,
    ),
    col('Name', (o) => o.metadata.name ?? '', 'string', 1),
  ],
  '/ResourceQuota': [
    NAME,
    col('Request', (o) => quotaCells(o, false)),
    col('Limit', (o) => quotaCells(o, true)),
    AGE,
  ],
  '/ReplicationController': [
    NAME,
    ...REPLICA_COUNTS,
    AGE,
    ...WORKLOAD_WIDE.slice(0, 2),
    // A ReplicationController's selector is a plain map (labels.FormatLabels).
    col('Selector', (o) => formatLabels(rec(o.spec).selector), 'string', 1),
  ],
  '/PersistentVolume': [
    NAME,
    col('Capacity', (o) => quantityString(rec(rec(o.spec).capacity).storage)),
    col('Access Modes', (o) => accessModes(rec(o.spec).accessModes)),
    col('Reclaim Policy', (o) => rec(o.spec).persistentVolumeReclaimPolicy ?? ''),
    col('Status', volumePhase),
    col('Claim', (o) => {
      const ref = rec(o.spec).claimRef;
      return isObject(ref) ? `${String(ref.namespace ?? '')}/${String(ref.name ?? '')}` : '';
    }),
    col('StorageClass', (o) => storageClassOf(o)),
    col('VolumeAttributesClass', (o) => rec(o.spec).volumeAttributesClassName ?? '<unset>'),
    col('Reason', (o) => rec(o.status).reason ?? ''),
    AGE,
    col('VolumeMode', (o) => rec(o.spec).volumeMode ?? '<unset>', 'string', 1),
  ],
  '/PersistentVolumeClaim': [
    NAME,
    col('Status', volumePhase),
    col('Volume', (o) => rec(o.spec).volumeName ?? ''),
    // Capacity and access modes are the bound volume's, once the claim names one.
    col('Capacity', (o) =>
      rec(o.spec).volumeName ? quantityString(rec(rec(o.status).capacity).storage) : '',
    ),
    col('Access Modes', (o) =>
      rec(o.spec).volumeName ? accessModes(rec(o.status).accessModes) : '',
    ),
    col('StorageClass', (o) => storageClassOf(o)),
    col('VolumeAttributesClass', (o) => rec(o.spec).volumeAttributesClassName ?? '<unset>'),
    AGE,
    col('VolumeMode', (o) => rec(o.spec).volumeMode ?? '<unset>', 'string', 1),
  ],
  'autoscaling/HorizontalPodAutoscaler': [
    NAME,
    col('Reference', (o) => {
      const ref = rec(rec(o.spec).scaleTargetRef);
      return `${String(ref.kind ?? '')}/${String(ref.name ?? '')}`;
    }),
    col('Targets', (o) => hpaMetrics(o)),
    col('MinPods', (o) => {
      const min = rec(o.spec).minReplicas;
      return typeof min === 'number' ? String(min) : '<unset>';
    }),
    col('MaxPods', (o) => num(rec(o.spec).maxReplicas), 'integer'),
    col('Replicas', (o) => num(rec(o.status).currentReplicas), 'integer'),
    AGE,
  ],
  'coordination.k8s.io/Lease': [NAME, col('Holder', (o) => rec(o.spec).holderIdentity ?? ''), AGE],
  'node.k8s.io/RuntimeClass': [NAME, col('Handler', (o) => o.handler ?? ''), AGE],
  'networking.k8s.io/IngressClass': [
    withDefaultMark(NAME, 'ingressclass.kubernetes.io/is-default-class'),
    col('Controller', (o) => rec(o.spec).controller ?? ''),
    col('Parameters', (o) => {
      const p = rec(o.spec).parameters;
      if (!isObject(p)) return '<none>';
      const kind = typeof p.apiGroup === 'string' ? `${String(p.kind)}.${p.apiGroup}` : p.kind;
      return `${String(kind)}/${String(p.name)}`;
    }),
    AGE,
  ],
  'scheduling.k8s.io/PriorityClass': [
    NAME,
    col('Value', (o) => num(o.value), 'integer'),
    col('Global-Default', (o) => o.globalDefault === true, 'boolean'),
    AGE,
    col('PreemptionPolicy', (o) => o.preemptionPolicy ?? '', 'string', 1),
  ],
  'storage.k8s.io/StorageClass': [
    withDefaultMark(NAME, 'storageclass.kubernetes.io/is-default-class'),
    col('Provisioner', (o) => o.provisioner ?? ''),
    col('ReclaimPolicy', (o) => o.reclaimPolicy ?? 'Delete'),
    col('VolumeBindingMode', (o) => o.volumeBindingMode ?? 'Immediate'),
    col('AllowVolumeExpansion', (o) => o.allowVolumeExpansion === true, 'boolean'),
    AGE,
  ],
  'networking.k8s.io/NetworkPolicy': [
    NAME,
    col('Pod-Selector', (o) => selector({ selector: rec(o.spec).podSelector })),
    AGE,
  ],
  'apps/ControllerRevision': [
    NAME,
    col('Controller', (o) => {
      const ref = controllerOf(o);
      if (!ref) return '<none>';
      const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
      return `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
    }),
    col('Revision', (o) => num(o.revision), 'integer'),
    AGE,
  ],
  'rbac.authorization.k8s.io/RoleBinding': BINDING_COLUMNS,
  'rbac.authorization.k8s.io/ClusterRoleBinding': BINDING_COLUMNS,
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': [
    NAME,
    col(
      'Validations',
      (o) =>
        Array.isArray(rec(o.spec).validations) ? (rec(o.spec).validations as unknown[]).length : 0,
      'integer',
    ),
    col('ParamKind', (o) => {
      const p = rec(o.spec).paramKind;
      return isObject(p) ? `${String(p.apiVersion ?? '')}/${String(p.kind ?? '')}` : '<unset>';
    }),
    AGE,
  ],
  'certificates.k8s.io/CertificateSigningRequest': [
    NAME,
    AGE,
    col('SignerName', (o) => rec(o.spec).signerName || '<none>'),
    col('Requestor', (o) => rec(o.spec).username ?? ''),
    col('RequestedDuration', (o) => {
      const s = rec(o.spec).expirationSeconds;
      return typeof s === 'number' ? humanDuration(s * 1000) : '<none>';
    }),
    col('Condition', csrCondition),
  ],
  'discovery.k8s.io/EndpointSlice': [
    NAME,
    col('AddressType', (o) => o.addressType ?? ''),
    col('Ports', (o) =>
      listWithMore(
        (Array.isArray(o.ports) ? (o.ports as Obj[]) : []).map((p) =>
          typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*',
        ),
      ),
    ),
    col('Endpoints', (o) =>
      listWithMore(
        (Array.isArray(o.endpoints) ? (o.endpoints as Obj[]) : []).flatMap((e) =>
          Array.isArray(e.addresses) ? (e.addresses as string[]) : [],
        ),
      ),
    ),
    AGE,
  ],
  'networking.k8s.io/Ingress': [
    NAME,
    col('Class', (o) => rec(o.spec).ingressClassName ?? '<none>'),
    col('Hosts', (o) => ingressHosts(rec(o.spec).rules)),
    col('Address', (o) => {
      const lb = rec(rec(o.status).loadBalancer).ingress;
      const seen = new Set<string>();
      for (const i of Array.isArray(lb) ? (lb as Obj[]) : [])
        if (i.ip) seen.add(String(i.ip));
        else if (i.hostname) seen.add(String(i.hostname));
      return [...seen].sort().join(',');
    }),
    col('Ports', (o) =>
      Array.isArray(rec(o.spec).tls) && (rec(o.spec).tls as unknown[]).length ? '80, 443' : '80',
    ),
    AGE,
  ],
  'flowcontrol.apiserver.k8s.io/FlowSchema': [
    NAME,
    col('PriorityLevel', (o) => rec(rec(o.spec).priorityLevelConfiguration).name ?? ''),
    col('MatchingPrecedence', (o) => num(rec(o.spec).matchingPrecedence), 'integer'),
    col('DistinguisherMethod', (o) => {
      const d = rec(o.spec).distinguisherMethod;
      return isObject(d) ? String(d.type ?? '') : '<none>';
    }),
    AGE,
    col('MissingPL', (o) => {
      const conds = rec(o.status).conditions;
      const dangling = (Array.isArray(conds) ? (conds as Obj[]) : []).find(
        (c) => c.type === 'Dangling',
      );
      return dangling ? String(dangling.status ?? '') : '?';
    }),
  ],
};

/** printEvent's first timestamp: firstTimestamp, else eventTime (`<unknown>` when neither). */
function eventFirstSeen(o: KubeObject, now: number): string {
  return age(o.firstTimestamp ?? o.eventTime, now);
}

/** printEvent's last timestamp: the series' last observation, lastTimestamp, else the first. */
function eventLastSeen(o: KubeObject, now: number): string {
  if (isObject(o.series)) return age(o.series.lastObservedTime, now);
  return typeof o.lastTimestamp === 'string' ? age(o.lastTimestamp, now) : eventFirstSeen(o, now);
}

/** formatEventSource: the source's component and host, or the reporting controller and instance. */
function eventSource(o: KubeObject): string {
  const source = rec(o.source);
  const component = String(source.component || o.reportingController || '');
  const instance = String(source.host || o.reportingInstance || '');
  if (!component) return '';
  return instance ? `${component}, ${instance}` : component;
}

/** A volume's or claim's phase, Terminating once it is being deleted. */
function volumePhase(o: KubeObject): unknown {
  return o.metadata.deletionTimestamp ? 'Terminating' : (rec(o.status).phase ?? '');
}

/** helper.GetAccessModesAsString: the modes' short names, in this order, once each. */
function accessModes(modes: unknown): string {
  const sent = Array.isArray(modes) ? modes : [];
  return (
    [
      ['ReadWriteOnce', 'RWO'],
      ['ReadOnlyMany', 'ROX'],
      ['ReadWriteMany', 'RWX'],
      ['ReadWriteOncePod', 'RWOP'],
    ] as const
  )
    .filter(([mode]) => sent.includes(mode))
    .map(([, short]) => short)
    .join(',');
}

/** A Quantity's String(): its canonical form ("0" when unset, as a zero Quantity prints). */
function quantityString(v: unknown): string {
  const q = typeof v === 'string' || typeof v === 'number' ? parseGoQuantity(String(v)) : undefined;
  return q ? goQuantityString(q) : '0';
}

/** GetPersistentVolumeClass / GetPersistentVolumeClaimClass: the beta annotation, then the field. */
function storageClassOf(o: KubeObject): string {
  const beta = o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (beta !== undefined) return beta;
  const name = rec(o.spec).storageClassName;
  return typeof name === 'string' ? name : '';
}

/** formatHPAMetrics: each metric as current/target, the first two, then how many more. */
function hpaMetrics(o: KubeObject): string {
  const specs = Array.isArray(rec(o.spec).metrics) ? (rec(o.spec).metrics as unknown[]) : [];
  if (!specs.length) return '<none>';
  const statuses = Array.isArray(rec(o.status).currentMetrics)
    ? (rec(o.status).currentMetrics as unknown[])
    : [];
  const q = (v: unknown) => quantityString(v);
  const cells = specs.map((m, i) => {
    const spec = rec(m);
    const status = rec(statuses[i]);
    const current = (source: string, key: string) => {
      const c = rec(rec(status[source]).current);
      return isObject(status[source]) && c[key] !== undefined ? q(c[key]) : '<unknown>';
    };
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const source = spec.type === 'External' ? 'external' : 'object';
        const target = rec(rec(spec[source]).target);
        if (target.averageValue !== undefined)
          return `${current(source, 'averageValue')}/${q(target.averageValue)} (avg)`;
        return `${current(source, 'value')}/${q(target.value)}`;
      }
      case 'Pods':
        return `${current('pods', 'averageValue')}/${q(rec(rec(spec.pods).target).averageValue)}`;
      case 'Resource':
      case 'ContainerResource': {
        const source = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const src = rec(spec[source]);
        const target = rec(src.target);
        const name = String(src.name ?? '');
        if (target.averageValue !== undefined)
          return `${name}: ${current(source, 'averageValue')}/${q(target.averageValue)}`;
        const utilization = rec(rec(status[source]).current).averageUtilization;
        const now = typeof utilization === 'number' ? `${utilization}%` : '<unknown>';
        const want =
          typeof target.averageUtilization === 'number'
            ? `${target.averageUtilization}%`
            : '<auto>';
        return `${name}: ${now}/${want}`;
      }
      default:
        return '<unknown type>';
    }
  });
  const shown = cells.slice(0, 2).join(', ');
  return cells.length > 2 ? `${shown} + ${cells.length - 2} more...` : shown;
}

function quotaCells(o: KubeObject, limits: boolean): string {
  const hard = rec(rec(o.status).hard);
  const used = rec(rec(o.status).used);
  return Object.keys(hard)
    .filter((k) => k.startsWith('limits.') === limits)
    .sort()
    .map((k) => `${k}: ${String(used[k] ?? '0')}/${String(hard[k])}`)
    .join(', ');
}

/**
 * metav1.FormatLabelSelector of a spec's selector: its requirements (matchLabels and
 * matchExpressions alike) sorted by key, as labels.Selector prints them; `<none>` when empty.
 */
function selector(spec: Obj): string {
  const sel = rec(spec.selector);
  const reqs: Array<[string, string]> = Object.entries(rec(sel.matchLabels)).map(([k, v]) => [
    k,
    `${k}=${String(v)}`,
  ]);
  for (const e of Array.isArray(sel.matchExpressions) ? (sel.matchExpressions as Obj[]) : []) {
    const key = String(e.key);
    const values = (Array.isArray(e.values) ? (e.values as string[]) : []).slice().sort();
    const op = String(e.operator ?? '');
    if (op === 'In' || op === 'NotIn')
      reqs.push([key, `${key} ${op === 'In' ? 'in' : 'notin'} (${values.join(',')})`]);
    else if (op === 'Exists') reqs.push([key, key]);
    else if (op === 'DoesNotExist') reqs.push([key, `!${key}`]);
  }
  reqs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return reqs.map(([, r]) => r).join(',') || '<none>';
}

function printerColumn(c: PrinterColumn): Column {
  return {
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    // apiextensions-apiserver's tableconvertor: a column without a description describes its path.
    description:
      c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
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
  const key = `${t.info.group}/${t.info.kind}`;
  const cells = BUILTIN_COLUMNS[key];
  if (!cells) return releaseColumns(key) ? [NAME, AGE] : [NAME, CREATED_AT];
  const defined = new Map((releaseColumns(key) ?? []).map((d) => [d.name, d]));
  return cells.map((c) => ({ ...c, ...defined.get(c.name) }));
}

/** The kinds whose cells are code, with the names of their columns (for the tests). */
export function codedColumnNames(): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(BUILTIN_COLUMNS).map(([k, cols]) => [k, cols.map((c) => c.name)]),
  );
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
            : partialObjectMetadata(o, 'meta.k8s.io/v1'),
    })),
  };
}
