/**
 * The robustness report off the caller's thread: `chaos` (chaos.ts) runs in a worker_thread
 * (chaosworker.ts, bundled as dist/chaos-worker.js) with its own fake clusters, so the editor's
 * extension host stays responsive through the ten simulations. Progress comes back run by run; an
 * abort stops the report between runs, and the thread itself if a run does not end soon after.
 * A Go operator's report (gochaos.ts) runs the same way in its own thread (gochaosworker.ts,
 * dist/gochaos-worker.js): an abort there stops the build or the run in progress and its manager.
 */
import type { ChaosReport } from './chaos';
import type { Finding } from './findings';
import type { GoChaosOptions } from './gochaos';
import type { SimulationOptions } from './simulation';
import type { ReconcileTrace } from './trace';
import { newScriptWorker } from './workerscript';

/** What the thread is asked to run: plain data, it crosses postMessage. */
export type ChaosThreadOptions = Pick<
  SimulationOptions,
  'reconciler' | 'manifests' | 'durationMs' | 'podReadyDelayMs' | 'hangTimeoutMs' | 'seed'
>;

/** What the Go report's thread is asked to run (`chaos --go`'s options). */
export type GoChaosThreadOptions = Pick<
  GoChaosOptions,
  'moduleDir' | 'pkg' | 'manifests' | 'durationMs' | 'settleMs' | 'podReadyDelayMs' | 'seed'
> & {
  /** The fault classes to run, by name (default: all of them). */
  faults?: string[];
};

/** One run of the report with what the debugger needs of it (`fault` null for the baseline). */
export interface ChaosRunRecord {
  fault: string | null;
  traces: ReconcileTrace[];
  findings: Finding[];
}

export interface ChaosThreadResult {
  /** A Go operator's report says `clock: 'real'`. */
  report: ChaosReport & { clock?: 'real' };
  runs: ChaosRunRecord[];
}

/** Thread → caller. */
export type ChaosThreadMessage =
  | { type: 'run'; fault: string | null; done: number; total: number }
  | { type: 'done'; result: ChaosThreadResult }
  /** The process group of the Go manager now running (undefined: none is). */
  | { type: 'manager'; pid: number | undefined }
  | { type: 'error'; message: string };

/** Caller → thread. */
export type ChaosThreadCommand = { type: 'cancel' };

/** How long a run in progress may take to end after an abort before the thread is terminated. */
const CANCEL_GRACE_MS = 1000;
/** A Go run's manager gets 5 s to stop after SIGTERM (goprocess.ts), then its cluster closes. */
const GO_CANCEL_GRACE_MS = 8000;

export class ChaosCancelled extends Error {
  constructor() {
    super('The robustness report was cancelled.');
    this.name = 'ChaosCancelled';
  }
}

export interface ChaosThreadHooks {
  onRun?: (fault: string | null, done: number, total: number) => void;
  /** A Go report's manager process group as each run starts it (undefined once stopped). */
  onManager?: (pid: number | undefined) => void;
  signal?: AbortSignal;
}

export function runChaosInThread(
  opts: ChaosThreadOptions,
  hooks: ChaosThreadHooks = {},
): Promise<ChaosThreadResult> {
  return runInThread('chaos-worker', 'chaosworker.ts', opts, hooks, CANCEL_GRACE_MS);
}

/** A Go operator's report (`chaos --go`) in a thread of its own. */
export function runGoChaosInThread(
  opts: GoChaosThreadOptions,
  hooks: ChaosThreadHooks = {},
): Promise<ChaosThreadResult> {
  return runInThread('gochaos-worker', 'gochaosworker.ts', opts, hooks, GO_CANCEL_GRACE_MS);
}

function runInThread(
  bundle: string,
  source: string,
  workerData: unknown,
  { onRun, onManager, signal }: ChaosThreadHooks,
  graceMs: number,
): Promise<ChaosThreadResult> {
  if (signal?.aborted) return Promise.reject(new ChaosCancelled());
  let worker: ReturnType<typeof newScriptWorker>;
  try {
    worker = newScriptWorker(__dirname, bundle, source, {
      workerData,
      execArgv: ['--enable-source-maps'],
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return Promise.reject(new Error(`the robustness report's thread did not start: ${why}`));
  }
  /** The Go manager the thread is running, killed with the thread if it has to be terminated. */
  let manager: number | undefined;
  return new Promise<ChaosThreadResult>((resolve, reject) => {
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      if (graceTimer) clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
      if (manager !== undefined) killGroup(manager);
    };
    function onAbort() {
      const cmd: ChaosThreadCommand = { type: 'cancel' };
      worker.postMessage(cmd);
      graceTimer = setTimeout(() => settle(() => reject(new ChaosCancelled())), graceMs);
    }
    signal?.addEventListener('abort', onAbort);
    worker.on('message', (msg: ChaosThreadMessage) => {
      if (msg.type === 'run') onRun?.(msg.fault, msg.done, msg.total);
      else if (msg.type === 'manager') onManager?.((manager = msg.pid));
      else if (msg.type === 'done') settle(() => resolve(msg.result));
      else settle(() => reject(signal?.aborted ? new ChaosCancelled() : new Error(msg.message)));
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) =>
      settle(() =>
        reject(
          signal?.aborted
            ? new ChaosCancelled()
            : new Error(`the robustness report's thread exited (code ${code})`),
        ),
      ),
    );
  });
}

/** SIGKILL to a process group (a manager the thread started detached); gone already is fine. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
