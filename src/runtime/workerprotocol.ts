/**
 * Messages between the runtime (main thread) and the reconciler worker. Everything is structured-
 * clonable; errors travel as plain objects (SerializedError) and keep code/reason so isNotFound()
 * and friends work on both sides.
 */
import type { TypeRef } from '../cluster/types';
import type { Request } from './reconcile';

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
      message: typeof e.message === 'string' ? e.message : String(err),
      ...(typeof e.name === 'string' ? { name: e.name } : {}),
      ...(typeof e.code === 'number' ? { code: e.code } : {}),
      ...(typeof e.reason === 'string' ? { reason: e.reason } : {}),
      ...(status && typeof status === 'object'
        ? { status: JSON.parse(JSON.stringify(status)) }
        : {}),
      ...(typeof e.stack === 'string' ? { stack: e.stack } : {}),
    };
    if (e.name === 'TerminalError' || e.terminal === true) out.terminal = true;
    const loc = sourceFile && out.stack ? locate(out.stack, sourceFile) : undefined;
    if (loc) out.location = loc;
    return out;
  }
  return { message: String(err) };
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
