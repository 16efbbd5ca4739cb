/**
 * controller-runtime's structured logs, as its zap logger writes them with `--zap-encoder=json`:
 * one JSON object per line with `level`, `ts`, `logger`, `msg` and the key/value pairs the
 * controller adds (`controller`, `controllerGroup`, `controllerKind`, `namespace`, `name`,
 * `reconcileID`, `error`). At `--zap-log-level=5` the reconcile handler logs each reconcile's
 * start ("Reconciling") and how it ended (pkg/internal/controller/controller.go).
 */

export interface ZapEntry {
  /** zap's level name ("info", "error", "debug") or "Level(-5)" for V(5). */
  level: string;
  /** Wall-clock ms since the epoch. */
  ts: number;
  msg: string;
  logger?: string;
  controller?: string;
  controllerKind?: string;
  namespace?: string;
  name?: string;
  reconcileID?: string;
  error?: string;
  /** Every field of the line, as logged. */
  fields: Record<string, unknown>;
}

/** How a reconcile ended, as the reconcile handler logs it. */
export type ReconcileLogOutcome =
  | { kind: 'start' }
  | { kind: 'success' }
  | { kind: 'requeue' }
  | { kind: 'requeueAfter'; afterMs: number }
  | { kind: 'error'; error: string }
  | { kind: 'panic'; value: string };

/** Parses one line; undefined for anything that is not a zap JSON entry (build output, prints). */
export function parseZapLine(line: string): ZapEntry | undefined {
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(t);
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return undefined;
  const f = o as Record<string, unknown>;
  if (typeof f.msg !== 'string') return undefined;
  const str = (k: string) => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
  const e: ZapEntry = {
    level: str('level') ?? 'info',
    ts: parseTs(f.ts),
    msg: f.msg,
    fields: f,
  };
  for (const k of [
    'logger',
    'controller',
    'controllerKind',
    'namespace',
    'name',
    'reconcileID',
    'error',
  ] as const) {
    const v = str(k);
    if (v !== undefined) e[k] = v;
  }
  return e;
}

/**
 * zap's time encoders: epoch seconds (float; the production default), millis or nanos
 * (numbers), or an ISO 8601 / RFC 3339 string (the development default and the flags' others).
 */
function parseTs(ts: unknown): number {
  if (typeof ts === 'number') {
    if (ts > 1e17) return ts / 1e6; // nanos
    if (ts > 1e11) return ts; // millis
    return ts * 1000;
  }
  if (typeof ts === 'string') {
    const ms = Date.parse(ts);
    if (!Number.isNaN(ms)) return ms;
  }
  return Date.now();
}

/** The reconcile handler's own messages; undefined for any other line (the user's own logs). */
export function reconcileOutcome(e: ZapEntry): ReconcileLogOutcome | undefined {
  if (!e.reconcileID) return undefined;
  if (e.msg === 'Reconciling') return { kind: 'start' };
  if (e.msg === 'Reconcile successful') return { kind: 'success' };
  if (e.msg === 'Reconcile done, requeueing') return { kind: 'requeue' };
  const after = /^Reconcile done, requeueing after (.+)$/.exec(e.msg);
  if (after) return { kind: 'requeueAfter', afterMs: parseGoDuration(after[1]) };
  if (e.msg === 'Reconciler error') return { kind: 'error', error: e.error ?? '' };
  const panic = /^Observed a panic in reconciler: (.*)$/s.exec(e.msg);
  if (panic) return { kind: 'panic', value: panic[1] };
  return undefined;
}

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.Duration.String() back to milliseconds ("1m30s", "500ms", "1.5s", "2h0m0s"). */
export function parseGoDuration(s: string): number {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|μs|ms|s|m|h)/g;
  let ms = 0;
  let m: RegExpExecArray | null;
  let matched = '';
  while ((m = re.exec(s))) {
    ms += Number(m[1]) * UNITS[m[2]];
    matched += m[0];
  }
  const body = s.trim().replace(/^-/, '');
  if (body === '0s' || body === '0') return 0;
  if (matched !== body) return NaN;
  return s.trim().startsWith('-') ? -ms : ms;
}

const SHOWN = new Set(['level', 'ts', 'msg', 'logger', 'caller', 'stacktrace']);

/** One entry as a readable line: time, level, logger, message, then the other fields as JSON. */
export function formatZapEntry(e: ZapEntry): string {
  const rest = Object.fromEntries(Object.entries(e.fields).filter(([k]) => !SHOWN.has(k)));
  const level = /^Level\((-?\d+)\)$/.exec(e.level);
  return [
    new Date(e.ts).toISOString().slice(11, 23),
    level ? `V(${-Number(level[1])})` : e.level.toUpperCase(),
    ...(e.logger ? [`[${e.logger}]`] : []),
    e.msg,
    ...(Object.keys(rest).length ? [JSON.stringify(rest)] : []),
    ...(typeof e.fields.stacktrace === 'string' ? [`\n${e.fields.stacktrace}`] : []),
  ].join(' ');
}
