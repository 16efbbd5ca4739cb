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

test('the readable Go report says it ran on the real clock, and when the baseline never settled', () => {
  const report = {
    clock: 'real' as const,
    baseline: { reconciles: 650, apiCalls: 1300, steadyAtMs: null, objects: 4 },
    cases: [
      {
        fault: 'write-500',
        converged: true,
        timeToConvergeMs: 7935,
        reconciles: 654,
        apiCalls: 1308,
        findings: [],
        diff: '',
      },
    ],
  };
  const text = formatGoChaos(report, 5000);
  assert.match(text, /^Real clock\. The baseline never settled within 5s/);
  assert.match(text, /write-500 +yes +7\.935s +654 \(\+4\)/);
  const steady = formatGoChaos(
    { ...report, baseline: { ...report.baseline, steadyAtMs: 600 } },
    5000,
  );
  assert.match(steady, /^Real clock: times are from the manager’s first request\./);
});
