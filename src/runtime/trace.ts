/**
 * The record of one reconcile, phase by phase (seed §3.3): enqueue → dequeue → reconcile → read →
 * diff → write → status → result. Records are plain JSON-serialisable objects so they can cross to
 * a webview, be written by `simulate --json`, or be compared in tests.
 */
import type { KubeObject } from '../cluster/apimachinery/types';
import type { WebhookCallRecord } from '../cluster/admission/webhook/callrecord';
import type { EnqueueCause } from './handler';
import type { Request, Result } from './reconcile';
import type { WaitReason } from './delayingqueue';
import { interned } from '../util/intern';

/**
 * Traces a long-lived session keeps per controller (the oldest dropped first): the editor runs a
 * reconciler for hours, and its views filter the traces on every update. Runs with an end
 * (simulate, chaos) keep them all for their reports.
 */
export const KEPT_TRACES = 2000;

export const PHASES = [
  'enqueue',
  'dequeue',
  'reconcile',
  'read',
  'diff',
  'write',
  'status',
  'result',
] as const;
export type Phase = (typeof PHASES)[number];

export type Verb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete';

/** One API call made through ctx.client. `code` is the HTTP status it got (200/201 on success). */
export interface ApiCall {
  verb: Verb;
  resource: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  subresource: string;
  code: number;
  reason?: string;
  message?: string;
  /** The fault (faults file) that failed or delayed this call, by name: the debugger marks it. */
  fault?: string;
  /** Reads are served by the informer cache; writes go to the API server. */
  source: 'cache' | 'server';
  at: number;
  /**
   * Wall-clock ms the call took. On the virtual clock every call takes no controller time, so
   * this is what the debugger shows as latency (cache reads in microseconds, server round trips
   * against a real cluster in milliseconds).
   */
  wallMs?: number;
  /** resourceVersion the object had after the call (writes) or as read (gets). */
  resourceVersion?: string;
  /** The write changed nothing (same resourceVersion as before): no watch event follows. */
  noop?: boolean;
  /** For lists: how many items came back. */
  items?: number;
  /** For lists: the label and field selectors given, space-separated. */
  selector?: string;
  /** The admission (and conversion) webhooks the API server called for this call, in order. */
  webhooks?: WebhookCallRecord[];
}

/** One JSON-path-level change between two objects. */
export interface DiffEntry {
  path: string;
  op: 'add' | 'remove' | 'replace';
  before?: unknown;
  after?: unknown;
}

/** What made the request get processed: a watch event or a requeue. */
export interface Trigger {
  at: number;
  kind: 'event' | 'requeueAfter' | 'backoff' | 'rate-limit' | 'requeue';
  cause?: EnqueueCause;
  /** The event was caused by a write this controller made while reconciling this same key. */
  selfTriggered?: boolean;
  /** The reconcile (trace id) whose write or result produced this trigger. */
  fromReconcile?: number;
}

export interface PhaseRecord {
  phase: Phase;
  at: number;
  /**
   * Short human text, only on records that have nothing to build it from (an observed reconcile's
   * phases, a Go stop's). Read any record's words through phasesummary.ts's `phaseSummary`.
   */
  summary?: string;
  /** The call of a read, write or status phase; on a diff phase, the call of the write it precedes. */
  call?: ApiCall;
  /**
   * For diff: what the coming write changes. For write/status: what it changed, kept from the
   * start only when the objects are not (`recordObjects: false`), else computed from them by
   * `phaseDiff` when first read; read it through `phaseDiff`.
   */
  diff?: DiffEntry[];
  before?: KubeObject;
  after?: KubeObject;
  triggers?: Trigger[];
  queueWaitMs?: number;
  result?: Result;
  next?: NextAction;
}

/** What the queue does with the request after the reconcile, with the exact delay. */
export interface NextAction {
  action: 'forget' | 'requeueAfter' | 'rateLimited' | 'none';
  delayMs?: number;
  /** Absolute time (clock ms) the request becomes ready again. */
  at?: number;
  reason?: WaitReason;
}

export type Outcome = 'success' | 'requeue' | 'requeue_after' | 'error' | 'terminal';

export interface TraceError {
  message: string;
  name?: string;
  reason?: string;
  code?: number;
  terminal?: boolean;
  /** `file:line:column` in the user's source, when known (source-mapped). */
  location?: string;
  stack?: string;
}

export interface ReconcileTrace {
  /** Sequence number of the reconcile in this run (1-based). */
  id: number;
  /** controller-runtime's per-reconcile UUID. */
  reconcileID: string;
  controller: string;
  request: Request;
  key: string;
  worker: number;
  triggers: Trigger[];
  queuedAt?: number;
  start: number;
  end?: number;
  phases: PhaseRecord[];
  calls: ApiCall[];
  result?: Result;
  error?: TraceError;
  outcome?: Outcome;
  next?: NextAction;
  /** Added through `warn`: most traces share NO_WARNINGS. */
  warnings: readonly string[];
}

/** A trace's warnings when it has none, as most do: one list shared by every trace. */
export const NO_WARNINGS: readonly string[] = Object.freeze([]);

export function warn(trace: ReconcileTrace, message: string): void {
  trace.warnings = [...trace.warnings, message];
}

/**
 * What a phase changes: a diff phase's intended change; a write's, computed from the objects it
 * keeps when it keeps them. Only hot-loop findings read a write's diff, so a run that keeps the
 * objects does not walk them for every write.
 */
export function phaseDiff(rec: PhaseRecord): DiffEntry[] | undefined {
  if (rec.diff || !rec.after) return rec.diff;
  return (rec.diff = writtenDiff(rec.phase, rec.before, rec.after));
}

/**
 * What a write or status phase changed, between the objects before and after it. A status write
 * changes the status alone — the apiserver's status strategy puts the rest back after admission
 * (PrepareForUpdate, ResetObjectMetaForStatus), as the fake cluster does — so only the status is
 * walked: most of a bulk run's writes are status writes.
 */
export function writtenDiff(
  phase: Phase,
  before: KubeObject | undefined,
  after: KubeObject,
): DiffEntry[] {
  return phase === 'status'
    ? diffObjects(before?.status, after.status, undefined, '.status')
    : diffObjects(before, after);
}

/**
 * A structural diff between two JSON values, skipping bookkeeping metadata the server owns. `at`
 * is where the two values sit in their objects (".status"), the prefix of every path.
 */
export function diffObjects(
  before: unknown,
  after: unknown,
  ignore = IGNORED_PATHS,
  at = '',
): DiffEntry[] {
  const out: DiffEntry[] = [];
  walk(before, after, at, out, ignore.at(at));
  if (!out.length) return out;
  // Traces keep their diffs for a while: an array grown by push holds room for 16 entries, a
  // copy only for what it has (a bulk run keeps thousands of these short lists); paths are
  // built by concatenation and recur from reconcile to reconcile, so one copy of each is shared.
  for (const e of out) e.path = interned(e.path);
  return out.slice();
}

/**
 * `actual`, or `intended` when the server changed just what the caller meant to, to scalar values:
 * a status write's usual case, whose trace then keeps one list of changes instead of two equal
 * ones. Object values are never shared: the intended side holds the caller's objects, which the
 * caller may change after the write.
 */
export function sameChanges(intended: DiffEntry[], actual: DiffEntry[]): DiffEntry[] {
  if (intended.length !== actual.length) return actual;
  for (let i = 0; i < actual.length; i++) {
    const a = actual[i];
    const b = intended[i];
    if (a.path !== b.path || a.op !== b.op) return actual;
    if (a.before !== b.before || a.after !== b.after) return actual;
    if (isObjectValue(a.before) || isObjectValue(a.after)) return actual;
  }
  return intended;
}

function isObjectValue(v: unknown): boolean {
  return typeof v === 'object' && v !== null;
}

/**
 * Paths a diff skips, as a tree of member names walked alongside the objects: the walk asks its
 * node for a member instead of hashing every path it builds against a set of strings.
 */
type IgnoreNode = { [member: string]: IgnoreNode | true };

export class IgnoredPaths {
  private readonly root: IgnoreNode = Object.create(null) as IgnoreNode;

  /** `paths` are member paths from the object's root: ".metadata.uid". */
  constructor(paths: readonly string[]) {
    for (const p of paths) {
      const names = p.split('.').slice(1);
      const last = names.pop()!;
      let node: IgnoreNode | undefined = this.root;
      for (const name of names) {
        const next: IgnoreNode | true | undefined = node[name];
        if (next === true) {
          node = undefined; // a prefix is skipped whole already
          break;
        }
        node = node[name] = next ?? (Object.create(null) as IgnoreNode);
      }
      if (node) node[last] = true;
    }
  }

  /**
   * Nodes already found, by path: diffs start at a handful of places (the root, ".status"), and
   * splitting the path for every diff made two arrays and its names each time.
   */
  private readonly found = new Map<string, IgnoreNode | true | null>();

  /** The node for the members under `path` (".status"), or true when all of it is skipped. */
  at(path: string): IgnoreNode | true | undefined {
    if (!path) return this.root;
    const known = this.found.get(path);
    if (known !== undefined) return known ?? undefined; // null: nothing skipped there
    let node: IgnoreNode | true | undefined = this.root;
    for (const name of path.split('.').slice(1)) {
      if (node === true || node === undefined) break;
      node = node[name];
    }
    // Bounded: a caller diffing under many distinct paths gets them walked, not remembered.
    if (this.found.size < 64) this.found.set(path, node ?? null);
    return node;
  }
}

/** Bookkeeping the server owns: no write means to change it. */
const SERVER_OWNED = [
  '.metadata.resourceVersion',
  '.metadata.managedFields',
  '.metadata.creationTimestamp',
  '.metadata.uid',
  '.metadata.generation',
];

const IGNORED_PATHS = new IgnoredPaths(SERVER_OWNED);

/** IGNORED_PATHS and the status: what a write to the main resource means to change. */
export const IGNORED_PATHS_AND_STATUS = new IgnoredPaths([...SERVER_OWNED, '.status']);

/** The ignore node of member `k` under `ignore` (members of arrays are never skipped). */
function member(ignore: IgnoreNode | undefined, k: string): IgnoreNode | true | undefined {
  return ignore === undefined ? undefined : ignore[k];
}

function walk(
  a: unknown,
  b: unknown,
  path: string,
  out: DiffEntry[],
  ignore: IgnoreNode | true | undefined,
): void {
  if (ignore === true) return;
  if (a === b) return;
  if (a === undefined && isPlainObject(b) && path) {
    for (const k of Object.keys(b)) walk(undefined, b[k], `${path}.${k}`, out, member(ignore, k));
    return;
  }
  if (b === undefined && isPlainObject(a) && path) {
    for (const k of Object.keys(a)) walk(a[k], undefined, `${path}.${k}`, out, member(ignore, k));
    return;
  }
  if (a === undefined) {
    out.push({ path: path || '.', op: 'add', after: b });
    return;
  }
  if (b === undefined) {
    out.push({ path: path || '.', op: 'remove', before: a });
    return;
  }
  const ao = isPlainObject(a);
  const bo = isPlainObject(b);
  // Identical members (shared references, equal scalars) are skipped before their path is built:
  // most of an object is unchanged by a write.
  if (ao && bo) {
    for (const k in a) if (a[k] !== b[k]) walk(a[k], b[k], `${path}.${k}`, out, member(ignore, k));
    for (const k in b)
      if (!(k in a) && b[k] !== undefined)
        walk(undefined, b[k], `${path}.${k}`, out, member(ignore, k));
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === b.length) {
      for (let i = 0; i < a.length; i++)
        if (a[i] !== b[i]) walk(a[i], b[i], `${path}[${i}]`, out, undefined);
      return;
    }
  }
  if (JSON.stringify(a) !== JSON.stringify(b))
    out.push({ path: path || '.', op: 'replace', before: a, after: b });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
