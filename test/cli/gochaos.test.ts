import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/chaos';
import { formatGoChaos } from '../../src/cli/gochaos';
import { capture as captureRun } from './capture';

const capture = (argv: string[]) => captureRun(run, argv);

test('chaos --go hands over to the Go report: its help, and its usage errors exit 2', async () => {
  const help = await capture(['--go', 'x', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /--settle D/);
  assert.equal((await capture(['--go='])).code, 2);
  const duration = await capture(['--go', 'x', '--duration', 'soon']);
  assert.equal(duration.code, 2);
  assert.match(duration.err, /invalid duration "soon"/);
  const seed = await capture(['--go', 'x', '--seed', '-1']);
  assert.equal(seed.code, 2);
  // --reconciler belongs to the TypeScript report.
  assert.equal((await capture(['--go', 'x', '--reconciler', 'r.ts'])).code, 2);
});

test('the readable Go report says it judged the Go operator on the real clock, how long it watched, and a baseline that never settled', () => {
  const report = {
    clock: 'real' as const,
    durationMs: 5000,
    settleMs: 2500,
    baseline: { reconciles: 650, apiCalls: 1300, steadyAtMs: null, objects: 4, findings: [] },
    cases: [
      {
        fault: 'write-500',
        converged: true,
        timeToConvergeMs: null,
        settled: false,
        reconciles: 654,
        apiCalls: 1308,
        findings: [],
        diff: '',
      },
    ],
  };
  const lines = formatGoChaos(report).split('\n');
  assert.match(
    lines[0],
    /^Go operator: its manager, on the real clock .*watched up to 5s, steady after 2\.5s/,
  );
  // The same words as the editor's panel (chaosverdict.ts): no case claims a convergence.
  assert.equal(
    lines[1],
    "No fault class ended away from the baseline's state. 1 of 1 matched the baseline's state without settling, so whether they converge is not known: the baseline never settled: every run was compared as it stood when cut off after 5s.",
  );
  assert.match(
    lines[2],
    /^Baseline: 650 reconciles, 1300 API calls, 4 objects; never settled: the manager was still writing when its run was cut off after 5s/,
  );
  assert.match(formatGoChaos(report), /write-500 +unsettled +- +654 \(\+4\)/);
  const steady = formatGoChaos({
    ...report,
    baseline: { ...report.baseline, steadyAtMs: 600 },
    cases: [{ ...report.cases[0], settled: true, timeToConvergeMs: 7935 }],
  });
  assert.match(steady, /Baseline: 650 reconciles, 1300 API calls, steady at 0\.600s, 4 objects\./);
  assert.match(steady, /write-500 +yes +7\.935s +654 \(\+4\)/);
  assert.match(steady, /All 1 fault classes converged/);
});
