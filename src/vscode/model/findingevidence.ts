/**
 * A finding's evidence in sentences, for the Reconcile Debugger's findings banner. findings.ts
 * keeps its evidence as data (the CLI's JSON report prints it as it is); a person reads what it
 * says: counts with their nouns, clock times from the session's start, lengths of time in their
 * unit, objects by kind and name — never epoch milliseconds or JSON.
 */
import type { Finding } from '../../runtime/findings';
import { formatDuration, formatOffset, plural } from './timeformat';

type Evidence = Record<string, unknown>;

/** One line per fact; `origin` is the clock time the session started. */
export function describeEvidence(f: Pick<Finding, 'kind' | 'evidence'>, origin: number): string[] {
  const e = f.evidence;
  const at = (k: string) => (typeof e[k] === 'number' ? formatOffset(e[k], origin) : undefined);
  const lines = (WORDING[f.kind]?.(e, at) ?? []).filter((l): l is string => !!l);
  return lines.length ? lines : genericLines(e, origin);
}

type Wording = (
  e: Evidence,
  at: (key: string) => string | undefined,
) => Array<string | false | undefined>;

const startedAt: Wording = (_e, at) => [at('at') && `The reconcile started at ${at('at')}.`];

const WORDING: Record<string, Wording> = {
  'hot-loop': (e, at) => [
    `${plural(num(e.reconciles), 'reconcile')} ${e.reason === 'rate' ? 'within one second of controller time' : 'in a row, each triggered by its own write'}${at('at') ? `, detected at ${at('at')}` : ''}.`,
    list(e.changedPaths) && `Each pass wrote ${list(e.changedPaths)}.`,
    list(e.otherWriters) && `Another writer changed ${list(e.otherWriters)}.`,
    pair(e.generations) &&
      `The generation went from ${pair(e.generations)![0]} to ${pair(e.generations)![1]}.`,
    e.suspended ? 'Processing of the key was paused.' : 'The key keeps being reconciled.',
  ],
  'quota-conflict': (e, at) => [
    e.source === 'event' ? eventLine(e.event) : callLine(e.call),
    Array.isArray(e.ownerChain) &&
      `Owner chain: ${(e.ownerChain as ObjectRef[]).map(objectName).join(' ← ')}.`,
    quotaLine(e),
    `${e.source === 'event' ? 'Counted' : 'Seen'} ${plural(num(e.count), 'time')}${at('firstAt') ? `, first at ${at('firstAt')}` : ''}.`,
  ],
  'conflict-storm': (e, at) => [
    `${plural(num(e.conflicts), 'update conflict')} (409) over ${plural(num(e.reconciles), 'reconcile')}.`,
    at('firstAt') &&
      `From ${at('firstAt')} to ${at('lastAt')} (${formatDuration(num(e.lastAt) - num(e.firstAt))}).`,
    list(e.objects) && `On ${list(e.objects)}.`,
  ],
  'status-update-requeue': (e) => [
    `${num(e.triggeredByOwnStatusWrite)} of ${plural(num(e.reconciles), 'reconcile')} were triggered by the controller's own status write.`,
    `${num(e.noopStatusWrites)} of ${plural(num(e.statusWrites), 'status write')} changed nothing.`,
    Array.isArray(e.reconcilesWithSeveralStatusWrites) &&
      `${plural(e.reconcilesWithSeveralStatusWrites.length, 'reconcile')} wrote status more than once.`,
  ],
  'status-error-ignored': (e) => [
    `The status write was answered ${e.code}${e.reason ? ` ${String(e.reason)}` : ''}${e.message ? `: ${String(e.message)}` : ''}.`,
    Array.isArray(e.traceIds) &&
      `${plural(e.traceIds.length, 'reconcile')} returned success after it.`,
  ],
  'backoff-at-cap': (e, at) => [
    `The backoff reached ${formatDuration(num(e.delayMs))} after ${plural(num(e.attempts), 'failure')}${at('firstAt') ? `, at ${at('firstAt')}` : ''}.`,
    e.lastError ? `Last error: ${String(e.lastError)}.` : undefined,
  ],
  'hung-reconcile': startedAt,
  'terminal-error': startedAt,
  'result-with-error': startedAt,
};

interface ObjectRef {
  kind?: string;
  resource?: string;
  namespace?: string;
  name?: string;
}

function objectName(o: ObjectRef): string {
  return `${o.kind ?? o.resource ?? ''} ${o.namespace ? `${o.namespace}/` : ''}${o.name ?? ''}`.trim();
}

function callLine(call: unknown): string | undefined {
  if (!isRecord(call)) return undefined;
  return `${String(call.verb)} of ${objectName(call)} was answered ${String(call.code)}.`;
}

function eventLine(event: unknown): string | undefined {
  if (!isRecord(event)) return undefined;
  const on = isRecord(event.involvedObject) ? ` on ${objectName(event.involvedObject)}` : '';
  const type = event.type ? ` (${String(event.type)})` : '';
  return `Event ${String(event.reason ?? '')}${type}${on}: ${String(event.message ?? '')}`;
}

function quotaLine(e: Evidence): string | undefined {
  if (typeof e.quota !== 'string') return undefined;
  const parts = (['requested', 'used', 'limited'] as const)
    .filter((k) => typeof e[k] === 'string')
    .map((k) => `${k} ${String(e[k])}`);
  return `ResourceQuota ${e.quota}${parts.length ? `: ${parts.join(', ')}` : ''}.`;
}

/**
 * Evidence of a kind not worded above: each entry as "label: value", with times, lengths and
 * nested objects in words (keys ending in `At` are clock times, in `Ms` lengths of time).
 */
export function genericLines(e: Evidence, origin: number): string[] {
  return Object.entries(e)
    .filter(([k, v]) => v !== undefined && v !== null && k !== 'traceIds' && k !== 'traceId')
    .map(([k, v]) => `${label(k)}: ${valueWords(k, v, origin)}`);
}

function valueWords(key: string, v: unknown, origin: number): string {
  if (typeof v === 'number') {
    if (/At$|^at$/.test(key)) return formatOffset(v, origin);
    if (/Ms(P\d+|Total|Max)?$/.test(key)) return formatDuration(v);
    if (/Percent$/.test(key)) return `${v}%`;
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v)) return v.map((x) => valueWords(key, x, origin)).join(', ') || 'none';
  if (isRecord(v))
    return Object.entries(v)
      .filter(([, x]) => x !== undefined && x !== null)
      .map(([k, x]) => `${label(k).toLowerCase()} ${valueWords(k, x, origin)}`)
      .join(', ');
  return String(v);
}

/** `queueWaitMsP50` → "queue wait p50", `changedPaths` → "changed paths". */
function label(key: string): string {
  const words = key
    .replace(/Ms(?=P\d+|Total|Max|$)/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function list(v: unknown): string | undefined {
  return Array.isArray(v) && v.length ? v.map(String).join(', ') : undefined;
}

function pair(v: unknown): [number, number] | undefined {
  return Array.isArray(v) && v.length === 2 ? (v as [number, number]) : undefined;
}
