/**
 * Messages between the extension host and the Reconcile Debugger webview, declared once and
 * type-checked on both sides. Everything here is plain JSON: it crosses postMessage.
 * Incoming messages are validated with `parseWebviewMessage` before the host acts on them.
 */

/** The eight phases of one reconcile, in order (seed §3.3): the runtime's own list. */
import { PHASES, type Phase } from './runtime/trace';
export { PHASES, type Phase };

/** Outcomes a breakpoint can stop on. */
export const OUTCOMES = ['conflict', 'forbidden', 'notFound', 'error', 'requeue'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface RequestView {
  namespace: string;
  name: string;
}

export interface ApiCallView {
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  code: number;
  message?: string;
  /** Reads are answered by the informer cache; writes go to the API server. */
  source: 'cache' | 'server';
  /** Wall-clock time the call took (0 while it has not happened yet). */
  latencyMs: number;
  phase: Phase;
  /** The injected fault (faults file) that failed or delayed the call, by name. */
  fault?: string;
  /** The admission (and conversion) webhooks the API server called for the call, in order. */
  webhooks?: WebhookCallView[];
}

/** One webhook call a write made, as the API calls pane shows it under that write. */
export interface WebhookCallView {
  /** `mutating`, `validating` or `conversion`. */
  kind: string;
  webhook: string;
  /** The configuration the webhook is in, and what it was asked (`CREATE configmaps default/x`). */
  configuration?: string;
  asked?: string;
  /** In words: `allowed`, `allowed, patched`, `denied (403)`, `timed out — write refused`… */
  verdict: string;
  /** The webhook refused the write, or the failed call refused it (failurePolicy Fail). */
  refused: boolean;
  /** The call failed (time-out, unreachable, an invalid answer). */
  failed: boolean;
  /** The denial's message or the failure's wording. */
  message?: string;
  latencyMs: number;
}

export interface WriteView {
  verb: string;
  resource: string;
  name?: string;
  subresource?: string;
  code: number;
  /** YAML of the object before and after the write (empty when it did not exist / was refused). */
  before: string;
  after: string;
}

export interface PhaseView {
  phase: Phase;
  /** Virtual (or wall) time in ms when the phase began. */
  at: number;
  detail: string;
}

export interface ResultView {
  /** What Reconcile returned, e.g. `{ requeueAfter: 30s }` or `error: ...`. */
  returned: string;
  error: string | null;
  /** What the queue does next, in words: "forget", "requeue after 30s", "rate-limited requeue (backoff 3)". */
  next: string;
  /** When the request is due again (clock ms), if it is. */
  nextAt: number | null;
  delayMs: number | null;
}

export interface ReconcileView {
  id: string;
  controller: string;
  request: RequestView;
  /** Why the request was enqueued (the event and object that caused it). */
  reason: string;
  start: number;
  end: number | null;
  phases: PhaseView[];
  /** The phase the stepper holds, or null when running / finished. */
  heldAt: Phase | null;
  calls: ApiCallView[];
  writes: WriteView[];
  /** The reconciled object as read at the start and as it stands after the reconcile. */
  objectBefore: string;
  objectAfter: string;
  result: ResultView | null;
  outcomes: Outcome[];
  /** The user's source line for the phase shown ("Show in source"), when the backend knows it. */
  location?: { file: string; line: number };
}

export interface ReconcileSummary {
  id: string;
  start: number;
  end: number | null;
  outcome: string;
  /** The injected faults that hit this reconcile's calls, by name (absent when none). */
  faults?: string[];
}

/** What the debugger's "Fail the next call with…" / "Delay it" can do to the held call. */
export const DEBUGGER_FAULTS = [
  'conflict',
  'quota',
  'throttle',
  'internal',
  'timeout',
  'delay',
] as const;
export type DebuggerFault = (typeof DEBUGGER_FAULTS)[number];

export interface FindingView {
  kind: string;
  message: string;
  request: RequestView | null;
  evidence: string[];
}

/**
 * A chart point: the controller's clock then (ms), the value, and the session's running time
 * then (ms): wall-clock time since the session started, time held in the debugger left out. The
 * charts plot running time: on the virtual clock a hot loop's reconciles all happen at one
 * instant of controller time, but each takes wall-clock time, so over running time they read as
 * a rate. (For a Go operator the controller's clock is the wall clock.)
 */
export type ChartPoint = [clock: number, value: number, run: number];

/** One key's reconciles counted up over time (a point at each reconcile). */
export interface KeySeries {
  key: string;
  points: ChartPoint[];
}

/** The panel's charts, drawn against the session's running time. */
export interface ChartsView {
  /** The session's running time now (ms): where the charts' x axis ends. */
  runMs: number;
  /** Requests waiting in the queue. */
  queueDepth: ChartPoint[];
  /** How long each reconcile took (time held at a breakpoint excluded), at its end. */
  latencyMs: ChartPoint[];
  /** The busiest keys' reconciles. */
  reconcilesPerKey: KeySeries[];
}

export type SessionStatus =
  'idle' | 'starting' | 'running' | 'held' | 'paused' | 'stopped' | 'error';

export interface DebuggerState {
  status: SessionStatus;
  /** A sentence for the status line (what is happening, or what went wrong). */
  message: string;
  reconciler: string | null;
  /** Clock time the session started; the panel shows times relative to it. */
  origin: number;
  now: number;
  current: ReconcileView | null;
  history: ReconcileSummary[];
  breakpoints: { phases: Phase[]; outcomes: Outcome[] };
  charts: ChartsView;
  findings: FindingView[];
  /**
   * The call held before it happens that a fault can be injected into (a write or status write
   * of a TypeScript reconciler on the embedded cluster; a Go operator's held write, status write
   * or server read, whose next identical call the fault is for), e.g. "update configmaps default/cfg".
   */
  faultTarget?: string;
  /** What the session runs, so a restored panel can start it again (absent before any run). */
  source?: DebuggerSource;
  /**
   * A hold on a real cluster, whose clock does not stop: when it began (wall clock, epoch ms) and
   * what it puts at risk; the panel counts the time held and down to each warning.
   */
  hold?: HoldView;
}

/** A hold on a real cluster (DebuggerState.hold). */
export interface HoldView {
  since: number;
  /** The kubeconfig context the manager runs against. */
  cluster: string;
  warnings: HoldWarning[];
}

/** Something a long hold would set off: a leader Lease lost, webhook calls timing out. */
export interface HoldWarning {
  kind: 'lease' | 'webhook';
  /** How long after the hold began it fires. */
  firesAfterMs: number;
  message: string;
}

/** Webview → extension. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'step' }
  | { type: 'continue' }
  | { type: 'pause' }
  | { type: 'restart' }
  | { type: 'showSource' }
  | { type: 'setBreakpoints'; phases: Phase[]; outcomes: Outcome[] }
  | { type: 'inspect'; id: string }
  | { type: 'openFinding'; index: number }
  | { type: 'injectFault'; fault: DebuggerFault };

/** Extension → webview. */
export type HostMessage = { type: 'state'; state: DebuggerState };

const SIMPLE = new Set(['ready', 'step', 'continue', 'pause', 'restart', 'showSource']);

/** Validates a message from the webview; anything malformed is dropped (returns undefined). */
export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const msg = raw as Record<string, unknown>;
  const type = msg.type;
  if (typeof type !== 'string') return undefined;
  if (SIMPLE.has(type)) return { type } as WebviewMessage;
  if (type === 'setBreakpoints') {
    const phases = stringsIn(msg.phases, PHASES);
    const outcomes = stringsIn(msg.outcomes, OUTCOMES);
    if (!phases || !outcomes) return undefined;
    return { type, phases, outcomes };
  }
  if (type === 'inspect' && typeof msg.id === 'string') return { type, id: msg.id };
  if (type === 'injectFault') {
    const fault = stringsIn([msg.fault], DEBUGGER_FAULTS)?.[0];
    return fault ? { type, fault } : undefined;
  }
  if (type === 'openFinding' && Number.isInteger(msg.index)) {
    return { type, index: msg.index as number };
  }
  return undefined;
}

function stringsIn<T extends string>(value: unknown, allowed: readonly T[]): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = value.every(
    (v) => typeof v === 'string' && (allowed as readonly string[]).includes(v),
  );
  return ok ? (value as T[]) : undefined;
}

export function emptyDebuggerState(): DebuggerState {
  return {
    status: 'idle',
    // What a panel shows until the extension sends its session (after a reload, while the
    // extension host starts): it is waiting, not empty.
    message: 'Waiting for Reconcile Studio to send this panel its session…',
    reconciler: null,
    origin: 0,
    now: 0,
    current: null,
    history: [],
    breakpoints: { phases: [...PHASES], outcomes: [] },
    charts: { runMs: 0, queueDepth: [], latencyMs: [], reconcilesPerKey: [] },
    findings: [],
  };
}

/** Which backend a debugger session runs, and what: enough to start it again. */
export interface DebuggerSource {
  backend: 'typescript' | 'go';
  /** The reconciler module's URI (TypeScript) or the Go module's folder. */
  module: string;
}

/**
 * What the debugger webview keeps with `setState`. After a window reload VS Code hands it to the
 * extension's panel serializer, which brings the panel back saying what it showed.
 */
export interface DebuggerSnapshot {
  source: DebuggerSource;
  reconciler: string | null;
  /** The reconcile shown: its request, the last phase it reached, and whether it was held there. */
  shown: { id: string; request: RequestView; phase: Phase | null; held: boolean } | null;
  breakpoints: { phases: Phase[]; outcomes: Outcome[] };
  /** The panel's tab (Reconcile or Charts) when it was saved: a reload opens the same one. */
  tab?: DebuggerTab;
}

/** The Reconcile Debugger's tabs under its controls. */
export type DebuggerTab = 'reconcile' | 'charts';

/** The tab a saved webview state names; Reconcile (the panel's first) when it names none. */
export function savedTab(raw: unknown): DebuggerTab {
  return record(raw)?.tab === 'charts' ? 'charts' : 'reconcile';
}

/**
 * The snapshot of what the panel shows now, or null when no session ran (nothing to restore).
 * A stopped session that shows no reconcile (a panel restored after a reload) keeps what the
 * `previous` snapshot of the same session showed, so a second reload still says it.
 */
export function debuggerSnapshot(
  state: DebuggerState,
  previous?: DebuggerSnapshot,
  tab?: DebuggerTab,
): DebuggerSnapshot | null {
  if (!state.source) return null;
  const cur = state.current;
  const same =
    previous?.source.backend === state.source.backend &&
    previous.source.module === state.source.module;
  const keep = !cur && state.status === 'stopped' && same ? previous.shown : null;
  return {
    source: state.source,
    reconciler: state.reconciler,
    shown:
      keep ??
      (cur
        ? {
            id: cur.id,
            request: cur.request,
            phase: cur.heldAt ?? cur.phases[cur.phases.length - 1]?.phase ?? null,
            held: cur.heldAt !== null,
          }
        : null),
    breakpoints: state.breakpoints,
    ...(tab ? { tab } : {}),
  };
}

/** Validates a snapshot VS Code hands back (it was stored by the webview: trust nothing). */
export function parseDebuggerSnapshot(raw: unknown): DebuggerSnapshot | undefined {
  const o = record(raw);
  const source = record(o?.source);
  const backend = source?.backend;
  if (!o || (backend !== 'typescript' && backend !== 'go') || typeof source?.module !== 'string')
    return undefined;
  const bp = record(o.breakpoints);
  const phases = stringsIn(bp?.phases, PHASES);
  const outcomes = stringsIn(bp?.outcomes, OUTCOMES);
  const shown = record(o.shown);
  const request = record(shown?.request);
  const phase = shown?.phase === null ? null : stringsIn([shown?.phase], PHASES)?.[0];
  const validShown =
    shown &&
    typeof shown.id === 'string' &&
    typeof request?.namespace === 'string' &&
    typeof request.name === 'string' &&
    phase !== undefined &&
    typeof shown.held === 'boolean';
  return {
    source: { backend, module: source.module },
    reconciler: typeof o.reconciler === 'string' ? o.reconciler : null,
    shown: validShown
      ? {
          id: shown.id as string,
          request: { namespace: request.namespace as string, name: request.name as string },
          phase,
          held: shown.held as boolean,
        }
      : null,
    breakpoints: phases && outcomes ? { phases, outcomes } : { phases: [...PHASES], outcomes: [] },
    ...(o.tab === 'reconcile' || o.tab === 'charts' ? { tab: o.tab } : {}),
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

// ---- The robustness report panel ("Reconcile Studio: Run Robustness Report")

/** One fault class of the report, as its row shows it. */
export interface RobustnessRow {
  /** The fault class's id (`write-conflict`, `status-500`, …), as in `chaos --json`. */
  fault: string;
  /** The fault in words: "Conflict on write (409)". */
  title: string;
  converged: boolean;
  /**
   * ✓ converged, ✗ diverged, or unsettled: in the baseline's state when cut off still writing (a
   * Go operator's run, or its baseline, that never settled), so convergence is not known.
   */
  verdict: 'converged' | 'diverged' | 'unsettled';
  /** "1.005 s" of controller time, "—" when it did not converge, "not settled in 5 s". */
  timeToConverge: string;
  reconciles: number;
  apiCalls: number;
  /** Against the baseline: "+2", "-1", "+0". */
  extraReconciles: string;
  extraApiCalls: string;
  /** Findings in words ("lost status: the status write failed and the reconcile returned success"). */
  findings: string[];
  /** How the final state differs from the baseline's ('' when converged). */
  diff: string;
  /**
   * The reconcile where it went wrong, for "Open in debugger at the reconcile where it went
   * wrong": only on a row that went wrong (did not converge, or has findings).
   */
  wentWrong?: { reconcileID: string; label: string };
}

export interface RobustnessView {
  status: 'running' | 'done' | 'error' | 'cancelled';
  message: string;
  reconciler: string | null;
  /** The runtime the report judged: "Go operator (its manager, real clock)". */
  runtime?: string;
  /** What the numbers must be read with (a Go operator's report: the real clock). */
  note?: string;
  baseline: {
    reconciles: number;
    apiCalls: number;
    steadyAt: string;
    objects: number;
    /** Why it has no steady time, said instead of "steady at —" (chaosverdict.ts). */
    unsettled?: string;
  } | null;
  rows: RobustnessRow[];
}

/** Robustness panel → extension. */
export type RobustnessWebviewMessage =
  { type: 'ready' } | { type: 'rerun' } | { type: 'openInDebugger'; fault: string };

/** Extension → robustness panel. */
export type RobustnessHostMessage = { type: 'report'; view: RobustnessView };

/** Validates a message from the robustness panel; anything malformed is dropped. */
export function parseRobustnessMessage(raw: unknown): RobustnessWebviewMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const msg = raw as Record<string, unknown>;
  if (msg.type === 'ready' || msg.type === 'rerun') return { type: msg.type };
  if (msg.type === 'openInDebugger' && typeof msg.fault === 'string' && msg.fault !== '')
    return { type: 'openInDebugger', fault: msg.fault };
  return undefined;
}
