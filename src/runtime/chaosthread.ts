/**
 * The robustness report off the caller's thread: `chaos` (chaos.ts) runs in a worker_thread
 * (chaosworker.ts, bundled as dist/chaos-worker.js) with its own fake clusters, so the editor's
 * extension host stays responsive through the ten simulations. Progress comes back run by run; an
 * abort stops the report between runs, and the thread itself if a run does not end soon after.
 */
import type { ChaosReport } from './chaos';
import type { Finding } from './findings';
import type { SimulationOptions } from './simulation';
import type { ReconcileTrace } from './trace';
import { newScriptWorker } from './workerscript';

/** What the thread is asked to run: plain data, it crosses postMessage. */
export type ChaosThreadOptions = Pick<
  SimulationOptions,
  'reconciler' | 'manifests' | 'durationMs' | 'podReadyDelayMs' | 'hangTimeoutMs' | 'seed'
>;

/** One run of the report with what the debugger needs of it (`fault` null for the baseline). */
export interface ChaosRunRecord {
  fault: string | null;
  traces: ReconcileTrace[];
  findings: Finding[];
}

export interface ChaosThreadResult {
  report: ChaosReport;
  runs: ChaosRunRecord[];
}

/** Thread → caller. */
export type ChaosThreadMessage =
  | { type: 'run'; fault: string | null; done: number; total: number }
  | { type: 'done'; result: ChaosThreadResult }
  | { type: 'error'; message: string };

/** Caller → thread. */
export type ChaosThreadCommand = { type: 'cancel' };

/** How long a run in progress may take to end after an abort before the thread is terminated. */
const CANCEL_GRACE_MS = 1000;

export class ChaosCancelled extends Error {
  constructor() {
    super('The robustness report was cancelled.');
    this.name = 'ChaosCancelled';
  }
}

export function runChaosInThread(
  opts: ChaosThreadOptions,
  hooks: {
    onRun?: (fault: string | null, done: number, total: number) => void;
    signal?: AbortSignal;
  } = {},
): Promise<ChaosThreadResult> {
  const { onRun, signal } = hooks;
  if (signal?.aborted) return Promise.reject(new ChaosCancelled());
  const worker = newScriptWorker(__dirname, 'chaos-worker', 'chaosworker.ts', {
    workerData: opts,
    execArgv: ['--enable-source-maps'],
  });
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
    };
    function onAbort() {
      const cmd: ChaosThreadCommand = { type: 'cancel' };
      worker.postMessage(cmd);
      graceTimer = setTimeout(() => settle(() => reject(new ChaosCancelled())), CANCEL_GRACE_MS);
    }
    signal?.addEventListener('abort', onAbort);
    worker.on('message', (msg: ChaosThreadMessage) => {
      if (msg.type === 'run') onRun?.(msg.fault, msg.done, msg.total);
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
