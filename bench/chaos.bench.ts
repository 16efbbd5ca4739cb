// The robustness report's wall time on the sample (a baseline and nine fault classes, each a
// 2-minute run on the virtual clock, reconciler in its worker thread as `chaos` runs it), against
// the floor of one plain simulation of the same inputs measured in the same run.
import { join } from 'node:path';
import { chaos } from '../src/runtime/chaos';
import { runChaosInThread } from '../src/runtime/chaosthread';
import { simulate } from '../src/runtime/simulation';

const SAMPLE = join(__dirname, '..', 'samples/quota-operator');
const opts = {
  reconciler: join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
  manifests: [join(SAMPLE, 'config')],
  durationMs: 120_000,
  isolate: true,
};

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main(): Promise<void> {
  await simulate(opts); // warm up: the module bundle and the worker
  const floor = Math.min(await timed(() => simulate(opts)), await timed(() => simulate(opts)));
  const report = Math.min(await timed(() => chaos(opts)), await timed(() => chaos(opts)));
  console.log(
    `chaos report on the sample: ${report.toFixed(0)} ms (${(report / floor).toFixed(2)}x one simulation at ${floor.toFixed(0)} ms; 10 runs per report)`,
  );
  // The editor's path (Run Robustness Report): the same report in a thread of its own, traces and
  // findings of every run sent back.
  const { isolate: _isolate, ...threadOpts } = opts;
  const threaded = Math.min(
    await timed(() => runChaosInThread(threadOpts)),
    await timed(() => runChaosInThread(threadOpts)),
  );
  console.log(
    `chaos report in its worker thread (the editor's path): ${threaded.toFixed(0)} ms (${(threaded / report).toFixed(2)}x the report in this thread)`,
  );
}

void main();
