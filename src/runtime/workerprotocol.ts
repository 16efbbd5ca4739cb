/**
 * Messages between the runtime (main thread) and the reconciler worker. Everything is structured-
 * clonable; errors travel as plain objects (SerializedError) and keep code/reason so isNotFound()
 * and friends work on both sides.
 */
import { readFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { TypeRef } from '../cluster/apimachinery/types';
import { InvalidResultError, resultProblem, thrownMessage, type Request } from './reconcile';

export interface ReconcilerDefinition {
  for: TypeRef;
  owns?: TypeRef[];
  maxConcurrentReconciles?: number;
  name?: string;
}

export interface SerializedError {
  message: string;
  name?: string;
  code?: number;
  reason?: string;
  status?: unknown;
  stack?: string;
  terminal?: boolean;
  /** `file:line:column` of the user's source, from the source-mapped stack. */
  location?: string;
}

export type ClientMethod =
  | 'get'
  | 'list'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'status.update'
  | 'status.patch'
  | 'log.info'
  | 'log.error'
  | 'event';

export type ToWorker =
  | { type: 'init'; bundlePath: string; sourceFile: string }
  | { type: 'reconcile'; id: number; req: Request; reconcileID: string; now: number }
  | { type: 'callResult'; callId: number; ok: true; value: unknown }
  | { type: 'callResult'; callId: number; ok: false; error: SerializedError };

export type FromWorker =
  /** The worker starts running the module's top-level code: the host's load time-out starts now. */
  | { type: 'loading' }
  | { type: 'ready'; definition: ReconcilerDefinition }
  | { type: 'loadError'; error: SerializedError }
  | { type: 'call'; id: number; callId: number; method: ClientMethod; args: unknown[] }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'failed'; id: number; error: SerializedError };

export function serializeError(err: unknown, sourceFile?: string): SerializedError {
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    const status = e.status;
    const out: SerializedError = {
      message: thrownMessage(err),
      ...(typeof e.name === 'string' ? { name: e.name } : {}),
      ...(typeof e.code === 'number' ? { code: e.code } : {}),
      ...(typeof e.reason === 'string' ? { reason: e.reason } : {}),
      ...(status && typeof status === 'object'
        ? { status: JSON.parse(JSON.stringify(status)) }
        : {}),
      ...(typeof e.stack === 'string' ? { stack: e.stack } : {}),
    };
    if (e.name === 'TerminalError' || e.terminal === true) out.terminal = true;
    const known = typeof e.location === 'string' ? e.location : undefined;
    const loc = known ?? (sourceFile && out.stack ? locate(out.stack, sourceFile) : undefined);
    if (loc) out.location = loc;
    return out;
  }
  return { message: thrownMessage(err) };
}

/**
 * Errors the host raises when the worker itself fails — it called process.exit, ran out of memory,
 * crashed outside a reconcile, or computed past the hang time-out — rather than the reconcile
 * returning an error. A Go operator would be dead or stuck at this point; the CLI stops there.
 */
export const WORKER_FAILURES: ReadonlySet<string> = new Set([
  'ReconcileHangError',
  'ReconcilerExitError',
  'ReconcilerOutOfMemoryError',
  'ReconcilerCrashError',
]);

/**
 * `file:line:column` in the user's source where `fn` is defined, found by locating its source text
 * in the bundle and mapping that position through the bundle's source map. Used when there is no
 * stack to read the location from (a malformed value returned by reconcile).
 */
export function functionLocation(fn: unknown, bundlePath: string, sourceFile: string): string {
  if (typeof fn !== 'function') return sourceFile;
  let bundleCode: string;
  try {
    bundleCode = readFileSync(bundlePath, 'utf8');
  } catch {
    return sourceFile;
  }
  const i = bundleCode.indexOf(Function.prototype.toString.call(fn));
  if (i < 0) return sourceFile;
  const before = bundleCode.slice(0, i);
  const line = before.split('\n').length - 1;
  const column = i - (before.lastIndexOf('\n') + 1);
  const entry = findSourceMap(bundlePath)?.findEntry(line, column) as
    { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
  if (!entry || entry.originalLine === undefined || !entry.originalSource) return sourceFile;
  const src = entry.originalSource.startsWith('file:')
    ? fileURLToPath(entry.originalSource)
    : entry.originalSource;
  return `${src}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
}

/** The first stack frame in the user's source file, as `file:line:column`. */
export function locate(stack: string, sourceFile: string): string | undefined {
  for (const line of stack.split('\n')) {
    const i = line.indexOf(sourceFile);
    if (i < 0) continue;
    const m = /^(.*?):(\d+):(\d+)/.exec(line.slice(i));
    if (m) return `${m[1]}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/** Rebuilds an Error from its serialized form, keeping code/reason/status for the is* helpers. */
export function deserializeError(s: SerializedError): Error {
  const err = new Error(s.message) as Error & Record<string, unknown>;
  if (s.name) err.name = s.name;
  if (s.code !== undefined) err.code = s.code;
  if (s.reason !== undefined) err.reason = s.reason;
  if (s.status !== undefined) err.status = s.status;
  if (s.terminal) err.terminal = true;
  if (s.location) err.location = s.location;
  if (s.stack) err.stack = s.stack;
  return err;
}

/**
 * Throws InvalidResultError, located at the reconcile function, when a reconcile's return value is
 * not a Result. Checked where the value is still the user's (before structured cloning turns NaN
 * into null).
 */
export function assertResult(
  result: unknown,
  reconcile: unknown,
  bundlePath: string,
  sourceFile: string,
): void {
  const problem = resultProblem(result);
  if (!problem) return;
  const err = new InvalidResultError(problem) as InvalidResultError & { location?: string };
  err.location = functionLocation(reconcile, bundlePath, sourceFile);
  // Our own frames would only mislead: the value came from the user's reconcile.
  err.stack = `${err.name}: ${err.message}\n    at reconcile (${err.location})`;
  throw err;
}
