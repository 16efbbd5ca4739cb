/**
 * Turns what Delve shows at a stop (variables as Delve prints them) into the phase a person
 * thinks in: dequeue, reconcile, read, write, status, result — and, for the result, what
 * controller-runtime's `reconcileHandler` does with the request next.
 */
import type { WebhookCallRecord } from '../../cluster/admission/webhook/callrecord';
import type { Phase, NextAction } from '../trace';

export interface GoCall {
  verb: 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'apply';
  kind: string;
  namespace: string;
  name: string;
  subresource: string;
  /** The informer cache answered (reads), or the API server did. */
  source: 'cache' | 'server';
  /** HTTP status: from the cache lookup, or from the cluster's record of the request. */
  code?: number;
  reason?: string;
  message?: string;
  before?: unknown;
  after?: unknown;
  /** From the cluster's record of a server call: the resource (plural) and the client's user agent. */
  resource?: string;
  userAgent?: string;
  /** The injected fault (cluster/faults.ts) that failed or delayed it, by name. */
  fault?: string;
  /** How long the API server took to answer (its audit record's start to end); cache reads have none. */
  latencyMs?: number;
  /** The webhooks the API server called for it (its audit record's). */
  webhooks?: WebhookCallRecord[];
}

export interface GoResult {
  requeue: boolean;
  requeueAfterMs: number;
  /** The error Reconcile returned, as Delve prints it; null for nil. */
  error: string | null;
  terminal: boolean;
}

export interface GoPhase {
  phase: Phase;
  /** "read Deployment default/blog (cache) → 404 NotFound" */
  summary: string;
  request?: { namespace: string; name: string };
  /** controller-runtime's per-reconcile UUID (a local of reconcileHandler: dequeue and result). */
  reconcileID?: string;
  /** controller-runtime's name of the controller (its `Name`, as its logs and metrics say it). */
  controller?: string;
  call?: GoCall;
  result?: GoResult;
  next?: NextAction;
  /** The user's source line for this stop (the innermost frame in the user's module). */
  location?: { file: string; line: number };
}

/**
 * The controller's name from reconcileHandler's receiver as Delve prints it,
 * `*controller.Controller[reconcile.Request] {Name: "webapp", MaxConcurrentReconciles: 1, …`.
 */
export function controllerNameOf(value: string): string {
  return /^\*?[^{]*\{Name: "([^"]*)"/.exec(value)?.[1] ?? '';
}

/** `{NamespacedName: {Namespace: "default", Name: "blog"}}` (or a bare NamespacedName) → parts. */
export function parseNamespacedName(value: string): { namespace: string; name: string } {
  const ns = /Namespace: "([^"]*)"/.exec(value)?.[1] ?? '';
  const name = /Name: "([^"]*)"/.exec(value.replace(/NamespacedName:/g, ''))?.[1] ?? '';
  return { namespace: ns, name };
}

/**
 * Namespace and name from an object as Delve prints it,
 * `… ObjectMeta: v1.ObjectMeta {Name: "blog", GenerateName: "", Namespace: "default", …`;
 * undefined when the value was cut before them.
 */
export function objectMetaOf(value: string): { namespace: string; name: string } | undefined {
  const m =
    /ObjectMeta: [\w.]* ?\{Name: "([^"]*)", GenerateName: "[^"]*", Namespace: "([^"]*)"/.exec(
      value,
    );
  return m ? { namespace: m[2], name: m[1] } : undefined;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A Go duration as Delve prints it: nanoseconds (`5000000000`) or Go's notation (`5s`, `1m30s`). */
export function parseGoDuration(text: string): number {
  const t = text.trim();
  if (/^-?\d+$/.test(t)) return Number(t) / 1e6;
  let ms = 0;
  for (const m of t.matchAll(/([\d.]+)(ns|us|µs|ms|s|m|h)/g)) ms += Number(m[1]) * UNIT_MS[m[2]];
  return ms;
}

/**
 * `reconcile.Result {Requeue: false, RequeueAfter: 5000000000, …}` and the error's value. Delve
 * names a value that equals a known constant, `RequeueAfter: k8s.io/klog/v2.flushInterval (5000000000)`:
 * the number in parentheses is the value.
 */
export function parseResult(result: string, err: string): GoResult {
  const after = /RequeueAfter: (?:[^,(]*\()?(-?[\w.µ]+)/.exec(result)?.[1] ?? '0';
  const isNil = /^(error )?nil$/.test(err.trim()) || err.trim() === '';
  return {
    requeue: /Requeue: true/.test(result),
    requeueAfterMs: parseGoDuration(after),
    error: isNil ? null : err,
    terminal: !isNil && /terminalError/.test(err),
  };
}

/**
 * What `reconcileHandler` does after Reconcile returns (controller-runtime's switch): an error
 * → rate-limited add (a TerminalError → none); RequeueAfter → Forget + add after; Requeue →
 * rate-limited add; otherwise Forget.
 */
export function queueDecision(r: GoResult): NextAction {
  if (r.error !== null) return r.terminal ? { action: 'none' } : { action: 'rateLimited' };
  if (r.requeueAfterMs > 0) return { action: 'requeueAfter', delayMs: r.requeueAfterMs };
  if (r.requeue) return { action: 'rateLimited' };
  return { action: 'forget' };
}

/** "requeue after 5s", "rate-limited requeue", "forget", "no requeue (terminal error)". */
export function describeNext(next: NextAction): string {
  switch (next.action) {
    case 'requeueAfter':
      return `forget, then add after ${formatMs(next.delayMs ?? 0)}`;
    case 'rateLimited':
      return 'rate-limited add (backoff)';
    case 'forget':
      return 'forget';
    default:
      return 'no requeue (terminal error)';
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The Go type Delve shows for an object, `client.Object(*k8s.io/api/apps/v1.Deployment)` → `Deployment`. */
export function kindOfType(type: string): string {
  const inner = /\(\*?([^()]+)\)\s*$/.exec(type)?.[1] ?? type;
  return /([A-Za-z0-9_]+)(\[.*\])?$/.exec(inner.replace(/^\*/, ''))?.[1] ?? inner;
}

/** controller-runtime's client method → the apiserver verb it sends. */
export function verbOf(method: string): GoCall['verb'] {
  const verbs: Record<string, GoCall['verb']> = {
    Get: 'get',
    List: 'list',
    Create: 'create',
    Update: 'update',
    Patch: 'patch',
    Delete: 'delete',
    DeleteAllOf: 'deletecollection',
    Apply: 'apply',
  };
  return verbs[method] ?? 'get';
}

/** A Delve frame name without type parameters: `pkg.(*Controller[go.shape…]).x` → `pkg.(*Controller).x`. */
export function frameFunction(name: string): string {
  let out = '';
  let depth = 0;
  for (const ch of name) {
    if (ch === '[') depth++;
    else if (ch === ']') depth--;
    else if (depth === 0) out += ch;
  }
  return out;
}

/**
 * Delve's frames name functions by the package's last path element; breakpoints by the full
 * path: both reduce to `controller.(*Controller).reconcileHandler`.
 */
export function shortFunction(name: string): string {
  const f = frameFunction(name);
  const paren = f.indexOf('.(');
  const head = paren >= 0 ? f.slice(0, paren) : f.slice(0, f.lastIndexOf('.'));
  return f.slice(head.lastIndexOf('/') + 1);
}

export function summarize(p: Omit<GoPhase, 'summary'>): string {
  const req = p.request ? `${p.request.namespace}/${p.request.name}` : '';
  if (p.call) {
    const c = p.call;
    const target = `${c.kind}${c.name ? ` ${c.namespace ? `${c.namespace}/` : ''}${c.name}` : ''}`;
    const code = c.code === undefined ? '' : ` → ${c.code}${c.reason ? ` ${c.reason}` : ''}`;
    return `${p.phase} ${c.verb} ${target}${c.subresource ? `/${c.subresource}` : ''} (${c.source})${code}`;
  }
  if (p.result) {
    const r = p.result;
    const returned =
      r.error ??
      (r.requeueAfterMs > 0
        ? `RequeueAfter: ${formatMs(r.requeueAfterMs)}`
        : r.requeue
          ? 'Requeue: true'
          : 'Result{}');
    return `result ${returned}; queue: ${p.next ? describeNext(p.next) : ''}`;
  }
  return `${p.phase} ${req}`;
}
