/**
 * controller-runtime's pkg/reconcile: the Request a reconcile receives (namespace/name only — the
 * reconciler must read the object itself), the Result it returns, and TerminalError, which means
 * "this will never succeed by retrying" and stops the rate-limited requeue.
 */
export interface Request {
  namespace: string;
  name: string;
}

/** Durations are milliseconds. `requeue` is deprecated upstream but still honoured, as there. */
export interface Result {
  requeue?: boolean;
  requeueAfter?: number;
}

const TERMINAL = Symbol.for('reconcile-studio.TerminalError');

/** reconcile.TerminalError(err): the controller logs and counts it but does not requeue. */
export class TerminalError extends Error {
  readonly [TERMINAL] = true;
  constructor(message: string | Error, options?: { cause?: unknown }) {
    super(
      typeof message === 'string' ? message : message.message,
      options ?? (message instanceof Error ? { cause: message } : undefined),
    );
    this.name = 'TerminalError';
  }
}

/**
 * errors.Is(err, TerminalError(nil)): also true for errors that crossed the worker boundary as
 * plain objects, and for errors whose cause chain contains a TerminalError.
 */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 10; depth++) {
    if ((e as Record<symbol, unknown>)[TERMINAL] === true) return true;
    if ((e as { terminal?: unknown }).terminal === true) return true;
    if ((e as { name?: unknown }).name === 'TerminalError') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The queue key of a request: `namespace/name`, or `name` for cluster-scoped objects (cache.MetaNamespaceKeyFunc). */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

export function parseRequestKey(key: string): Request {
  const i = key.indexOf('/');
  return i < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Normalises whatever a reconciler returned (undefined, {}, partial results) into a Result. */
export function normalizeResult(r: unknown): Result {
  if (!r || typeof r !== 'object') return {};
  const o = r as Result;
  const out: Result = {};
  if (o.requeue) out.requeue = true;
  if (typeof o.requeueAfter === 'number' && o.requeueAfter > 0) out.requeueAfter = o.requeueAfter;
  return out;
}
