/**
 * What a person wants to see of an object at a glance: its phase or Ready condition, whether the
 * controller has caught up with the latest spec (generation vs status.observedGeneration), and the
 * conditions behind it. Pure data; the tree provider turns it into icons and tooltips.
 */
import type { KubeObject } from '../../cluster/apimachinery/types';

export type Health = 'ok' | 'progressing' | 'warning' | 'error' | 'unknown';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface ObjectStatus {
  /** The short text shown beside the name: "Running", "Ready", "2/3 ready", "QuotaExceeded". */
  summary: string;
  health: Health;
  generation: number | undefined;
  observedGeneration: number | undefined;
  /** The controller has not yet seen the latest spec. */
  stale: boolean;
  conditions: Condition[];
  deleting: boolean;
}

const OK_PHASES = new Set([
  'Running',
  'Ready',
  'Active',
  'Succeeded',
  'Bound',
  'Available',
  'Healthy',
]);
const BAD_PHASES = new Set(['Failed', 'Error', 'CrashLoopBackOff', 'QuotaExceeded', 'Degraded']);
const PENDING_PHASES = new Set([
  'Pending',
  'Progressing',
  'Provisioning',
  'Creating',
  'Terminating',
]);

export function objectStatus(obj: KubeObject): ObjectStatus {
  const status = (obj.status ?? {}) as Record<string, unknown>;
  const conditions = readConditions(status.conditions);
  const generation = obj.metadata.generation;
  const observedGeneration =
    typeof status.observedGeneration === 'number' ? status.observedGeneration : undefined;
  const stale =
    generation !== undefined && observedGeneration !== undefined && observedGeneration < generation;
  const deleting = Boolean(obj.metadata.deletionTimestamp);
  const base = { generation, observedGeneration, stale, conditions, deleting };

  if (deleting) return { ...base, summary: 'Terminating', health: 'progressing' };
  // A custom resource its controller has not reported on yet.
  if (Object.keys(status).length === 0 && obj.apiVersion.includes('.'))
    return { ...base, summary: 'no status yet', health: 'unknown' };
  const phase = typeof status.phase === 'string' ? status.phase : undefined;
  const replicas = replicaSummary(obj, status);
  const ready = conditions.find((c) => c.type === 'Ready' || c.type === 'Available');
  const failure = conditions.find(
    (c) =>
      (c.type === 'ReplicaFailure' && c.status === 'True') ||
      (c.type === 'Degraded' && c.status === 'True'),
  );

  if (phase) {
    // A good phase is only as good as the readiness beside it: "Running · 0/3 ready" is not done.
    const notReady =
      (replicas !== undefined && replicas.ready < replicas.desired) || ready?.status === 'False';
    const health: Health = BAD_PHASES.has(phase)
      ? 'error'
      : failure
        ? 'warning'
        : OK_PHASES.has(phase)
          ? notReady
            ? 'progressing'
            : 'ok'
          : PENDING_PHASES.has(phase)
            ? 'progressing'
            : 'unknown';
    return { ...base, summary: replicas ? `${phase} · ${replicas.text}` : phase, health };
  }
  if (replicas) {
    const health: Health = failure
      ? 'warning'
      : replicas.ready >= replicas.desired
        ? 'ok'
        : 'progressing';
    return { ...base, summary: replicas.text, health };
  }
  if (ready) {
    const health: Health =
      ready.status === 'True' ? 'ok' : ready.status === 'False' ? 'error' : 'progressing';
    return {
      ...base,
      summary: ready.status === 'True' ? ready.type : ready.reason || `Not ${ready.type}`,
      health,
    };
  }
  if (Object.keys(status).length === 0)
    return { ...base, summary: 'no status yet', health: 'unknown' };
  return { ...base, summary: '', health: 'unknown' };
}

function replicaSummary(obj: KubeObject, status: Record<string, unknown>) {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  if (typeof spec.replicas !== 'number') return undefined;
  const ready = typeof status.readyReplicas === 'number' ? status.readyReplicas : 0;
  return { ready, desired: spec.replicas, text: `${ready}/${spec.replicas} ready` };
}

function readConditions(raw: unknown): Condition[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null)
    .map((c) => ({
      type: String(c.type ?? ''),
      status: String(c.status ?? 'Unknown'),
      reason: typeof c.reason === 'string' ? c.reason : undefined,
      message: typeof c.message === 'string' ? c.message : undefined,
    }));
}

/** A Markdown tooltip: the summary, the generation line and each condition. */
export function statusTooltip(obj: KubeObject, st: ObjectStatus): string {
  const lines = [
    `**${obj.kind} ${obj.metadata.namespace ? obj.metadata.namespace + '/' : ''}${obj.metadata.name}**`,
  ];
  if (st.summary) lines.push(`Status: ${st.summary}`);
  if (st.generation !== undefined) {
    const obs =
      st.observedGeneration === undefined ? 'not reported' : String(st.observedGeneration);
    lines.push(
      `generation ${st.generation}, observedGeneration ${obs}${st.stale ? ' — **status stale**' : ''}`,
    );
  }
  for (const c of st.conditions) {
    lines.push(
      `- ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`,
    );
  }
  return lines.join('\n\n');
}
