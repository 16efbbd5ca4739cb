/**
 * controller-runtime's pkg/reconcile: the Request a reconcile receives (namespace/name only — the
 * reconciler must read the object itself), the Result it returns, and TerminalError, which means
 * "this will never succeed by retrying" and stops the rate-limited requeue.
 */
import { inspect } from 'node:util';
import { flattened } from '../util/flatstring';

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

/**
 * The key of a request or of an object's metadata: `namespace/name`, or `name` for
 * cluster-scoped objects (cache.MetaNamespaceKeyFunc) — the work queue's, the informer store's
 * and the cache's.
 */
export function requestKey(req: { namespace?: string; name?: string }): string {
  const name = req.name ?? '';
  // Flat: a queued key lives until its reconcile and its traces keep it, a store keeps its keys as
  // long as the objects, and a flat key is hashed and compared faster when it is looked up.
  return req.namespace ? flattened(`${req.namespace}/${name}`) : name;
}

export function parseRequestKey(key: string): Request {
  const i = key.indexOf('/');
  return i < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * Go's zero reconcile.Result, the usual one: shared (frozen) rather than made for every reconcile,
 * since each trace keeps its result and a bulk run keeps thousands of traces.
 */
const ZERO_RESULT: Result = Object.freeze({});

/** Normalises a Result (or the partial Result an error carried) into the fields the controller reads. */
export function normalizeResult(r: unknown): Result {
  if (!r || typeof r !== 'object') return ZERO_RESULT;
  const o = r as Result;
  const requeue = !!o.requeue;
  const after = typeof o.requeueAfter === 'number' && o.requeueAfter > 0 ? o.requeueAfter : 0;
  if (!requeue && !after) return ZERO_RESULT;
  const out: Result = {};
  if (requeue) out.requeue = true;
  if (after) out.requeueAfter = after;
  return out;
}

/** A reconcile returned something Go's type system would never let through as a reconcile.Result. */
export class InvalidResultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidResultError';
  }
}

const RESULT_SHAPE = 'a Result { requeue?: boolean, requeueAfter?: number (ms) }';

/**
 * Why `r` cannot be a reconcile.Result, or undefined when it can. `undefined` (no return) is Go's
 * zero Result. Where Go has an equivalent the value passes as Go would treat it: a negative
 * RequeueAfter is a valid time.Duration that reconcileHandler's `RequeueAfter > 0` simply skips.
 * Where Go has none (a string, NaN, a non-boolean requeue) the result is refused.
 */
export function resultProblem(r: unknown): string | undefined {
  if (r === undefined) return undefined;
  if (r === null || typeof r !== 'object' || Array.isArray(r)) {
    return `reconcile returned ${describeValue(r)}, not ${RESULT_SHAPE}`;
  }
  const o = r as Record<string, unknown>;
  if (o.requeue !== undefined && typeof o.requeue !== 'boolean') {
    return `reconcile returned requeue: ${describeValue(o.requeue)}; requeue must be a boolean`;
  }
  const after = o.requeueAfter;
  if (after !== undefined && (typeof after !== 'number' || !Number.isFinite(after))) {
    return `reconcile returned requeueAfter: ${describeValue(after)}; requeueAfter must be a finite number of milliseconds`;
  }
  return undefined;
}

/** The Result a reconcile returned, or InvalidResultError (see resultProblem). */
export function validateResult(r: unknown): Result {
  const problem = resultProblem(r);
  if (problem) throw new InvalidResultError(problem);
  return normalizeResult(r);
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'function') return 'a function';
  return String(v);
}

/**
 * The message of whatever a reconciler threw. JavaScript lets code throw any value; a non-Error is
 * shown as Node prints an uncaught one (util.inspect), never as "[object Object]".
 */
export function thrownMessage(err: unknown): string {
  if (typeof err === 'string') return err;
  const m = err && typeof err === 'object' ? (err as { message?: unknown }).message : undefined;
  if (typeof m === 'string') return m;
  return inspect(err, { depth: 4, breakLength: Infinity });
}
