/**
 * The reconciler worker (bundled as dist/reconciler-worker.js): runs user reconciler code in a
 * worker_thread so that a synchronous infinite loop or a hang can be stopped by terminating the
 * thread, without taking down the extension host or the CLI. ctx.client calls are proxied to the
 * main thread, where the traced client, the cache and the cluster live.
 */
import { parentPort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import * as api from './api';
import {
  assertResult,
  deserializeError,
  serializeError,
  type ClientMethod,
  type FromWorker,
  type ToWorker,
} from './workerprotocol';
import type { Client, ObjectLike, ReconcileContext, Reconciler } from './api';

const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

process.setSourceMapsEnabled?.(true);
// The loader's esbuild plugin resolves `import ... from 'reconcile-studio'` to this global.
(globalThis as Record<string, unknown>).__reconcileStudio = api;

let reconciler: Reconciler | undefined;
let sourceFile = '';
let bundlePath = '';
let nextCallId = 1;
const pendingCalls = new Map<
  number,
  { resolve: (v: unknown) => void; reject: (e: unknown) => void }
>();

function send(msg: FromWorker): void {
  port!.postMessage(msg);
}

function call(id: number, method: ClientMethod, args: unknown[]): Promise<unknown> {
  const callId = nextCallId++;
  return new Promise((resolve, reject) => {
    pendingCalls.set(callId, { resolve, reject });
    send({ type: 'call', id, callId, method, args: JSON.parse(JSON.stringify(args)) });
  });
}

/** Go's client decodes the answer into the object passed: mirror that across the boundary. */
async function writeBack<T extends ObjectLike>(obj: T, p: Promise<unknown>): Promise<T> {
  const res = (await p) as object;
  for (const k of Object.keys(obj)) delete (obj as Record<string, unknown>)[k];
  Object.assign(obj, res);
  return obj;
}

function contextFor(id: number, reconcileID: string, now: number): ReconcileContext {
  const client: Client = {
    get: (type, key) => call(id, 'get', [type, key]) as never,
    list: (type, opts) => call(id, 'list', [type, opts ?? {}]) as never,
    create: (obj) => writeBack(obj, call(id, 'create', [obj])),
    update: (obj) => writeBack(obj, call(id, 'update', [obj])),
    patch: (obj, patch, pt) => writeBack(obj, call(id, 'patch', [obj, patch, pt ?? 'merge'])),
    delete: async (obj, opts) => {
      await call(id, 'delete', [obj, opts ?? {}]);
    },
    status: () => ({
      update: (obj) => writeBack(obj, call(id, 'status.update', [obj])),
      patch: (obj, patch, pt) =>
        writeBack(obj, call(id, 'status.patch', [obj, patch, pt ?? 'merge'])),
    }),
  };
  return {
    client,
    reconcileID,
    now: () => now,
    log: {
      info: (msg, values) => void call(id, 'log.info', [msg, values ?? {}]).catch(() => undefined),
      error: (err, msg, values) =>
        void call(id, 'log.error', [serializeError(err), msg, values ?? {}]).catch(() => undefined),
    },
    recorder: {
      event: (obj, type, reason, message) =>
        void call(id, 'event', [obj, type, reason, message]).catch(() => undefined),
    },
  };
}

port.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'init': {
      sourceFile = msg.sourceFile;
      bundlePath = msg.bundlePath;
      send({ type: 'loading' });
      try {
        const req = createRequire(msg.bundlePath);
        const mod = req(msg.bundlePath) as { default?: Reconciler } & Reconciler;
        const r = (mod.default ?? mod) as Reconciler;
        if (!r || typeof r.reconcile !== 'function' || !r.for?.kind || !r.for?.apiVersion) {
          throw new Error(
            'the module must default-export { for: { apiVersion, kind }, reconcile(ctx, req) }',
          );
        }
        reconciler = r;
        send({
          type: 'ready',
          definition: JSON.parse(
            JSON.stringify({
              for: r.for,
              owns: r.owns ?? [],
              maxConcurrentReconciles: r.maxConcurrentReconciles,
              name: r.name,
            }),
          ),
        });
      } catch (err) {
        send({ type: 'loadError', error: serializeError(err, sourceFile) });
      }
      return;
    }
    case 'callResult': {
      const p = pendingCalls.get(msg.callId);
      if (!p) return;
      pendingCalls.delete(msg.callId);
      if (msg.ok) p.resolve(msg.value);
      else p.reject(deserializeError(msg.error));
      return;
    }
    case 'reconcile': {
      const { id, req, reconcileID, now } = msg;
      Promise.resolve()
        .then(() => reconciler!.reconcile(contextFor(id, reconcileID, now), req))
        .then((result) => {
          assertResult(result, reconciler!.reconcile, bundlePath, sourceFile);
          return result;
        })
        .then(
          (result) => send({ type: 'done', id, result: JSON.parse(JSON.stringify(result ?? {})) }),
          (err) => send({ type: 'failed', id, error: serializeError(err, sourceFile) }),
        );
      return;
    }
  }
});
