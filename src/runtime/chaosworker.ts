/**
 * The robustness report's thread (bundled as dist/chaos-worker.js; started by chaosthread.ts):
 * runs `chaos` on the options it was started with, says when each run ends, and answers with the
 * report and every run's traces and findings. A cancel stops it at the end of the current run.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FAULT_CLASSES, chaos } from './chaos';
import type {
  ChaosRunRecord,
  ChaosThreadCommand,
  ChaosThreadMessage,
  ChaosThreadOptions,
} from './chaosthread';

const port = parentPort;
if (!port) throw new Error('chaosworker.ts must run in a worker thread');

let cancelled = false;
port.on('message', (cmd: ChaosThreadCommand) => {
  if (cmd.type === 'cancel') cancelled = true;
});

const send = (msg: ChaosThreadMessage) => port.postMessage(msg);

async function main(opts: ChaosThreadOptions): Promise<void> {
  const runs: ChaosRunRecord[] = [];
  const total = FAULT_CLASSES.length + 1;
  try {
    const report = await chaos({
      ...opts,
      onRun: (fault, run) => {
        runs.push({ fault, traces: run.traces, findings: run.findings });
        send({ type: 'run', fault, done: runs.length, total });
        if (cancelled) throw new Error('cancelled');
      },
    });
    send({ type: 'done', result: { report, runs } });
  } catch (err) {
    send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  port!.close();
}

void main(workerData as ChaosThreadOptions);
