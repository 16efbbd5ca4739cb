/**
 * A Go operator's robustness report in a thread (bundled as dist/gochaos-worker.js; started by
 * chaosthread.ts): runs `chaos --go` (gochaos.ts) on the options it was started with, says when
 * each run ends and which manager process group is running, and answers with the report and every
 * run's observed traces and findings. A cancel aborts the build or the run in progress: its
 * manager is stopped and its cluster closed before the thread answers.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FAULT_CLASSES } from './chaos';
import type {
  ChaosRunRecord,
  ChaosThreadCommand,
  ChaosThreadMessage,
  GoChaosThreadOptions,
} from './chaosthread';
import { goChaos } from './gochaos';

const port = parentPort;
if (!port) throw new Error('gochaosworker.ts must run in a worker thread');

const abort = new AbortController();
port.on('message', (cmd: ChaosThreadCommand) => {
  if (cmd.type === 'cancel') abort.abort();
});

const send = (msg: ChaosThreadMessage) => port.postMessage(msg);

async function main(opts: GoChaosThreadOptions): Promise<void> {
  const runs: ChaosRunRecord[] = [];
  const { faults, ...rest } = opts;
  const classes = faults ? FAULT_CLASSES.filter((c) => faults.includes(c.fault)) : FAULT_CLASSES;
  const total = classes.length + 1;
  try {
    const report = await goChaos({
      ...rest,
      classes,
      signal: abort.signal,
      onManager: (pid) => send({ type: 'manager', pid }),
      onRunDone: (fault, run) => {
        runs.push({ fault, traces: run.traces, findings: run.findings });
        send({ type: 'run', fault, done: runs.length, total });
      },
    });
    send({ type: 'done', result: { report, runs } });
  } catch (err) {
    send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  port!.close();
}

void main(workerData as GoChaosThreadOptions);
