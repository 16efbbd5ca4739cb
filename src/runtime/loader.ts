/**
 * Loads a reconciler module (.ts or .js) for the runtime: esbuild bundles it (its own imports
 * included) with an inline source map, resolving `reconcile-studio` to the runtime's public API
 * (api.ts). By default the bundle runs in a worker_thread (worker.ts): ctx.client calls come back
 * to this thread, and a watchdog terminates the worker when user code computes for longer than
 * `hangTimeoutMs` without returning or calling the client — a synchronous infinite loop or a hang
 * is stopped and reported as that reconcile's error, and a fresh worker takes over. The same
 * time-out bounds the module's top-level code, and the worker's heap is capped (`memoryLimitMb`):
 * a reconciler that loops at load, allocates without bound or calls process.exit fails with a
 * named error instead of taking the process down or leaving it waiting forever. While a worker
 * loads or reconciles it keeps the process alive; idle, it does not. Bundle folders are removed
 * on dispose and, whatever happens, when the process exits. Errors carry the user's
 * `file:line:column` (source-mapped).
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import * as api from './api';
import { newScriptWorker } from './workerscript';
import type { Reconciler, ReconcileContext, ObjectLike } from './api';
import type { ReconcileFunc } from './controller';
import type { Request } from './reconcile';
import {
  assertResult,
  deserializeError,
  serializeError,
  type FromWorker,
  type ReconcilerDefinition,
  type SerializedError,
  type ToWorker,
} from './workerprotocol';
import type { PatchType, TypeRef } from '../cluster/apimachinery/types';

export interface LoadOptions {
  /** Run in a worker_thread (default true). In-process is faster but cannot stop a sync loop. */
  isolate?: boolean;
  /**
   * Wall-clock ms user code may compute without returning or calling the client, and the module's
   * top-level code may take to load (default 5000; 0 turns both off).
   */
  hangTimeoutMs?: number;
  /** Heap limit of the worker thread in MB (default 512): past it the worker is stopped. */
  memoryLimitMb?: number;
}

export const DEFAULT_HANG_TIMEOUT_MS = 5000;
export const DEFAULT_MEMORY_LIMIT_MB = 512;

export interface LoadedReconciler {
  file: string;
  definition: ReconcilerDefinition;
  reconcile: ReconcileFunc;
  isolated: boolean;
  /** Rebuilds the bundle and swaps the code; the definition (for/owns) is re-read. */
  reload(): Promise<void>;
  dispose(): Promise<void>;
}

export class ReconcilerLoadError extends Error {
  constructor(
    message: string,
    readonly location?: string,
  ) {
    super(location ? `${location}: ${message}` : message);
    this.name = 'ReconcilerLoadError';
  }
}

interface Bundle {
  path: string;
  dir: string;
}

/** Bundle folders of this process, removed at exit even when a run ends abnormally. */
const liveBundles = new Set<string>();

function removeAllBundles(): void {
  for (const dir of liveBundles) rmSync(dir, { recursive: true, force: true });
  liveBundles.clear();
}

function trackBundle(dir: string): void {
  if (liveBundles.size === 0) process.once('exit', removeAllBundles);
  liveBundles.add(dir);
}

function removeBundle(b: Bundle | undefined): void {
  if (!b) return;
  rmSync(b.dir, { recursive: true, force: true });
  liveBundles.delete(b.dir);
  if (liveBundles.size === 0) process.off('exit', removeAllBundles);
}

/** Bundles the module to a temp .cjs with an inline source map. */
export async function bundleReconciler(file: string): Promise<Bundle> {
  // Required lazily: only loading a reconciler needs esbuild (and its native binary).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const esbuild = require('esbuild') as typeof import('esbuild');
  const abs = resolve(file);
  const dir = mkdtempSync(join(tmpdir(), 'reconcile-studio-'));
  trackBundle(dir);
  const out = join(dir, `${basename(abs).replace(/\.[cm]?[jt]s$/, '')}.bundle.cjs`);
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [abs],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      outfile: out,
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      absWorkingDir: dirname(abs),
      plugins: [
        {
          name: 'reconcile-studio-api',
          setup(b) {
            b.onResolve({ filter: /^reconcile-studio$/ }, () => ({
              path: 'reconcile-studio',
              namespace: 'reconcile-studio',
            }));
            b.onLoad({ filter: /.*/, namespace: 'reconcile-studio' }, () => ({
              contents: 'module.exports = globalThis.__reconcileStudio;',
              loader: 'js',
            }));
          },
        },
      ],
    });
  } catch (err) {
    removeBundle({ dir, path: out });
    const e = err as {
      errors?: Array<{ text: string; location?: { file: string; line: number; column: number } }>;
    };
    const first = e.errors?.[0];
    if (first) {
      const loc = first.location
        ? `${resolve(dirname(abs), first.location.file)}:${first.location.line}:${first.location.column + 1}`
        : undefined;
      throw new ReconcilerLoadError(first.text, loc);
    }
    throw err;
  }
  // esbuild writes source paths relative to the bundle; make them absolute so stacks name the user file.
  let code = result.outputFiles.find((f) => f.path.endsWith('.cjs'))?.text ?? '';
  code = absolutizeInlineSourceMap(code, dir);
  try {
    writeFileSync(out, code);
  } catch (err) {
    removeBundle({ dir, path: out });
    throw err;
  }
  return { path: out, dir };
}

function absolutizeInlineSourceMap(code: string, bundleDir: string): string {
  const marker = '//# sourceMappingURL=data:application/json;base64,';
  const i = code.lastIndexOf(marker);
  if (i < 0) return code;
  const map = JSON.parse(
    Buffer.from(code.slice(i + marker.length).trim(), 'base64').toString('utf8'),
  ) as {
    sources: string[];
  };
  map.sources = map.sources.map((s) =>
    s.startsWith('reconcile-studio:') ? s : resolve(bundleDir, s),
  );
  return code.slice(0, i) + marker + Buffer.from(JSON.stringify(map)).toString('base64') + '\n';
}

function validate(r: Reconciler | undefined, file: string): ReconcilerDefinition {
  if (!r || typeof r.reconcile !== 'function' || !r.for?.kind || !r.for?.apiVersion) {
    throw new ReconcilerLoadError(
      'the module must default-export { for: { apiVersion, kind }, reconcile(ctx, req) }',
      file,
    );
  }
  return {
    for: r.for,
    owns: r.owns ?? [],
    ...(r.maxConcurrentReconciles ? { maxConcurrentReconciles: r.maxConcurrentReconciles } : {}),
    ...(r.name ? { name: r.name } : {}),
  };
}

export async function loadReconciler(
  file: string,
  opts: LoadOptions = {},
): Promise<LoadedReconciler> {
  const abs = resolve(file);
  if (!existsSync(abs)) throw new ReconcilerLoadError(`no such file: ${abs}`);
  return opts.isolate === false
    ? loadInProcess(abs)
    : loadInWorker(abs, {
        hangTimeoutMs: opts.hangTimeoutMs ?? DEFAULT_HANG_TIMEOUT_MS,
        memoryLimitMb: opts.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB,
      });
}

// ---- in-process ----

async function loadInProcess(file: string): Promise<LoadedReconciler> {
  process.setSourceMapsEnabled?.(true);
  (globalThis as Record<string, unknown>).__reconcileStudio = api;
  let bundle: Bundle | undefined;
  let reconciler: Reconciler | undefined;
  const load = async () => {
    const b = await bundleReconciler(file);
    const req = createRequire(b.path);
    let mod: { default?: Reconciler } & Reconciler;
    try {
      mod = req(b.path) as typeof mod;
    } catch (err) {
      removeBundle(b);
      const s = serializeError(err, file);
      throw new ReconcilerLoadError(s.message, s.location);
    }
    const r = (mod.default ?? mod) as Reconciler;
    let def: ReconcilerDefinition;
    try {
      def = validate(r, file);
    } catch (err) {
      removeBundle(b);
      throw err;
    }
    removeBundle(bundle);
    bundle = b;
    reconciler = r;
    return def;
  };
  const loaded: LoadedReconciler = {
    file,
    isolated: false,
    definition: await load(),
    reconcile: async (ctx, req) => {
      const r = reconciler!;
      const b = bundle!;
      let result: unknown;
      try {
        result = await r.reconcile(ctx, req);
      } catch (err) {
        if (err && typeof err === 'object') {
          const loc = serializeError(err, file).location;
          if (loc) (err as Record<string, unknown>).location = loc;
        }
        throw err;
      }
      assertResult(result, r.reconcile, b.path, file);
      return result as Awaited<ReturnType<Reconciler['reconcile']>>;
    },
    reload: async () => {
      loaded.definition = await load();
    },
    dispose: async () => {
      removeBundle(bundle);
      bundle = undefined;
    },
  };
  return loaded;
}

// ---- worker ----

/** The worker script: the bundled dist/reconciler-worker.js, or worker.ts when running from source. */
function newWorker(memoryLimitMb: number): Worker {
  return newScriptWorker(__dirname, 'reconciler-worker', 'worker.ts', {
    execArgv: ['--enable-source-maps'],
    resourceLimits: { maxOldGenerationSizeMb: memoryLimitMb },
  });
}

interface InFlight {
  ctx: ReconcileContext;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Client calls the worker is waiting on: while > 0 the main thread has the ball. */
  outstanding: number;
  timer?: NodeJS.Timeout;
}

interface WorkerLimits {
  hangTimeoutMs: number;
  memoryLimitMb: number;
}

/** What a worker's 'error' event means for the user: out of memory, or a crash outside reconcile. */
function workerError(err: unknown, file: string, memoryLimitMb: number): SerializedError {
  if ((err as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return {
      name: 'ReconcilerOutOfMemoryError',
      message: `the reconciler worker ran out of memory (heap limit ${memoryLimitMb} MB) and was stopped`,
    };
  }
  const s = serializeError(err, file);
  return {
    ...s,
    name: 'ReconcilerCrashError',
    message: `the reconciler worker crashed: ${s.message}`,
  };
}

class WorkerHost {
  private worker: Worker | undefined;
  private bundle: Bundle | undefined;
  private nextId = 1;
  private readonly inflight = new Map<number, InFlight>();
  private restarting: Promise<void> | undefined;
  definition!: ReconcilerDefinition;

  constructor(
    private readonly file: string,
    private readonly limits: WorkerLimits,
  ) {}

  async start(): Promise<void> {
    const b = await bundleReconciler(this.file);
    try {
      this.definition = await this.spawn(b);
    } catch (err) {
      removeBundle(b);
      throw err;
    }
    removeBundle(this.bundle);
    this.bundle = b;
  }

  /**
   * Starts a worker on the bundle. It stays referenced (keeps the process alive) while it loads;
   * loading fails if the worker exits, crashes, runs out of memory or takes longer than the hang
   * time-out to run the module's top-level code.
   */
  private spawn(b: Bundle): Promise<ReconcilerDefinition> {
    const w = newWorker(this.limits.memoryLimitMb);
    const ms = this.limits.hangTimeoutMs;
    return new Promise((resolveDef, rejectDef) => {
      let ready = false;
      let settled = false;
      let loadTimer: NodeJS.Timeout | undefined;
      const failLoad = (message: string, location: string = this.file): void => {
        clearTimeout(loadTimer);
        if (settled) return;
        settled = true;
        void w.terminate();
        rejectDef(new ReconcilerLoadError(message, location));
      };
      w.on('message', (m: FromWorker) => {
        if (m.type === 'loading') {
          if (!ms) return;
          loadTimer = setTimeout(
            () =>
              failLoad(
                `the module did not finish loading within ${ms} ms (an infinite loop in its top-level code?); the reconciler worker was terminated`,
              ),
            ms,
          );
        } else if (m.type === 'ready') {
          clearTimeout(loadTimer);
          if (settled) return;
          settled = ready = true;
          const old = this.worker;
          this.worker = w;
          this.updateRef();
          if (old) void old.terminate();
          resolveDef(m.definition);
        } else if (m.type === 'loadError') {
          failLoad(m.error.message, m.error.location);
        } else if (w === this.worker) this.onMessage(m);
      });
      w.on('error', (err) => {
        const e = workerError(err, this.file, this.limits.memoryLimitMb);
        if (!ready) failLoad(`${e.message} while loading the module`, e.location);
        else if (w === this.worker) {
          this.worker = undefined;
          this.workerDied(e);
        }
      });
      w.on('exit', (code) => {
        if (!ready) {
          failLoad(
            `the reconciler worker exited with code ${code} while loading the module (the module called process.exit?)`,
          );
        } else if (w === this.worker) {
          this.worker = undefined;
          this.workerDied({
            name: 'ReconcilerExitError',
            message: `the reconciler worker exited with code ${code} (the reconciler called process.exit?)`,
          });
        }
      });
      w.postMessage({ type: 'init', bundlePath: b.path, sourceFile: this.file } satisfies ToWorker);
    });
  }

  /** A worker with reconciles in flight keeps the process alive (the CLI waits for it); idle, it does not. */
  private updateRef(): void {
    if (this.inflight.size) this.worker?.ref();
    else this.worker?.unref();
  }

  private post(m: ToWorker): void {
    this.worker?.postMessage(m);
  }

  private arm(id: number, f: InFlight): void {
    clearTimeout(f.timer);
    if (!this.limits.hangTimeoutMs || f.outstanding > 0) return;
    f.timer = setTimeout(() => this.onHang(id), this.limits.hangTimeoutMs);
    f.timer.unref?.();
  }

  private onHang(id: number): void {
    const ms = this.limits.hangTimeoutMs;
    const w = this.worker;
    this.worker = undefined;
    const f = this.inflight.get(id);
    this.inflight.delete(id);
    f?.reject(
      deserializeError({
        name: 'ReconcileHangError',
        message: `reconcile did not return within ${ms} ms of computation (synchronous infinite loop or hang); the reconciler worker was terminated and restarted`,
      }),
    );
    this.failAll({ message: 'reconciler worker restarted after a hang in another reconcile' });
    void w?.terminate();
    // A fresh worker for the next reconciles (the bundle is still on disk).
    if (this.bundle) {
      this.restarting = this.spawn(this.bundle).then(
        () => undefined,
        () => undefined,
      );
    }
  }

  /**
   * The worker exited, crashed or ran out of memory. The reconciles in flight fail with that error;
   * with none in flight (a timer or a stray promise of user code, between reconciles) the next
   * reconcile fails with it instead, so the failure is never lost.
   */
  private workerDied(error: SerializedError): void {
    if (this.inflight.size) this.failAll(error);
    else this.diedIdle = { ...error, message: `${error.message}, between reconciles` };
  }

  private diedIdle: SerializedError | undefined;

  private failAll(error: SerializedError): void {
    for (const [id, f] of this.inflight) {
      clearTimeout(f.timer);
      f.reject(deserializeError(error));
      this.inflight.delete(id);
    }
    this.updateRef();
  }

  async reconcile(ctx: ReconcileContext, req: Request): Promise<unknown> {
    const died = this.diedIdle;
    this.diedIdle = undefined;
    if (died) throw deserializeError(died);
    if (this.restarting) {
      await this.restarting;
      this.restarting = undefined;
    }
    if (!this.worker) {
      if (!this.bundle) throw new Error('reconciler not loaded');
      await this.spawn(this.bundle);
    }
    const id = this.nextId++;
    return new Promise((resolveR, rejectR) => {
      const f: InFlight = { ctx, resolve: resolveR, reject: rejectR, outstanding: 0 };
      this.inflight.set(id, f);
      this.updateRef();
      this.arm(id, f);
      this.post({ type: 'reconcile', id, req, reconcileID: ctx.reconcileID, now: ctx.now() });
    });
  }

  private onMessage(m: FromWorker): void {
    if (m.type === 'done' || m.type === 'failed') {
      const f = this.inflight.get(m.id);
      if (!f) return;
      clearTimeout(f.timer);
      this.inflight.delete(m.id);
      this.updateRef();
      if (m.type === 'done') f.resolve(m.result);
      else f.reject(deserializeError(m.error));
      return;
    }
    if (m.type !== 'call') return;
    const f = this.inflight.get(m.id);
    if (!f) return;
    f.outstanding++;
    clearTimeout(f.timer);
    this.perform(f.ctx, m.method, m.args).then(
      (value) => {
        f.outstanding--;
        this.arm(m.id, f);
        this.post({
          type: 'callResult',
          callId: m.callId,
          ok: true,
          value: value === undefined ? null : JSON.parse(JSON.stringify(value)),
        });
      },
      (err) => {
        f.outstanding--;
        this.arm(m.id, f);
        this.post({ type: 'callResult', callId: m.callId, ok: false, error: serializeError(err) });
      },
    );
  }

  private async perform(ctx: ReconcileContext, method: string, args: unknown[]): Promise<unknown> {
    const c = ctx.client;
    const a = args as [unknown, unknown, unknown, unknown];
    switch (method) {
      case 'get':
        return c.get(a[0] as TypeRef, a[1] as { name: string });
      case 'list':
        return c.list(a[0] as TypeRef, a[1] as object);
      case 'create':
        return c.create(a[0] as ObjectLike);
      case 'update':
        return c.update(a[0] as ObjectLike);
      case 'patch':
        return c.patch(a[0] as ObjectLike, a[1], a[2] as PatchType);
      case 'delete':
        return c.delete(a[0] as ObjectLike, a[1] as object);
      case 'status.update':
        return c.status().update(a[0] as ObjectLike);
      case 'status.patch':
        return c.status().patch(a[0] as ObjectLike, a[1], a[2] as PatchType);
      case 'log.info':
        return ctx.log.info(a[0] as string, a[1] as Record<string, unknown>);
      case 'log.error':
        return ctx.log.error(
          deserializeError(a[0] as { message: string }),
          a[1] as string,
          a[2] as Record<string, unknown>,
        );
      case 'event':
        return ctx.recorder.event(
          a[0] as ObjectLike,
          a[1] as 'Normal',
          a[2] as string,
          a[3] as string,
        );
      default:
        throw new Error(`unknown client method ${method}`);
    }
  }

  async dispose(): Promise<void> {
    this.failAll({ message: 'reconciler unloaded' });
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
    removeBundle(this.bundle);
    this.bundle = undefined;
  }
}

async function loadInWorker(file: string, limits: WorkerLimits): Promise<LoadedReconciler> {
  const host = new WorkerHost(file, limits);
  await host.start();
  const loaded: LoadedReconciler = {
    file,
    isolated: true,
    definition: host.definition,
    reconcile: (ctx, req) => host.reconcile(ctx, req),
    reload: async () => {
      await host.start();
      loaded.definition = host.definition;
    },
    dispose: () => host.dispose(),
  };
  return loaded;
}
