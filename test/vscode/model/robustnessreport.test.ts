/**
 * The robustness report's rows and the debugger on a recorded case, from a real report on the
 * sample operator (in-process, virtual clock).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it, before } from 'node:test';
import { INJECTED_QUOTA } from '../../../src/cluster/faults';
import { FAULT_CLASSES, chaos, type ChaosReport } from '../../../src/runtime/chaos';
import type { Finding } from '../../../src/runtime/findings';
import type { ReconcileTrace } from '../../../src/runtime/trace';
import { RecordedRunModel } from '../../../src/vscode/model/recordedrun';
import { formatDuration } from '../../../src/vscode/model/timeformat';
import {
  robustnessView,
  whereItWentWrong,
  type RecordedRun,
} from '../../../src/vscode/model/robustnessreport';

const SAMPLE = join(__dirname, '..', '..', '..', 'samples/quota-operator');

const quotaThenStatus500 = {
  fault: 'quota-then-status-500',
  rules: [
    {
      name: 'quota',
      match: { verb: 'update' as const, resource: 'deployments' },
      times: 1,
      error: { code: 403 as const, quota: INJECTED_QUOTA },
      line: 0,
    },
    {
      name: 'status-500',
      match: { verb: 'update' as const, subresource: 'status' },
      times: 1,
      error: { code: 500 as const },
      line: 0,
    },
  ],
};

describe('the robustness report on the sample', () => {
  let report: ChaosReport;
  const runs: Array<RecordedRun & { findings: Finding[] }> = [];
  before(async () => {
    report = await chaos({
      reconciler: join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
      manifests: [join(SAMPLE, 'config')],
      durationMs: 120_000,
      isolate: false,
      classes: [
        ...FAULT_CLASSES.filter((c) =>
          ['write-conflict', 'status-500', 'watch-closed', 'stale-cache'].includes(c.fault),
        ),
        quotaThenStatus500,
      ],
      onRun: (fault, run) => runs.push({ fault, traces: run.traces, findings: run.findings }),
    });
  });
  const rowOf = (fault: string) => {
    const row = robustnessView(report, runs, 'webapp.reconciler.ts').rows.find(
      (r) => r.fault === fault,
    );
    assert.ok(row, fault);
    return row;
  };
  const traceOf = (fault: string, reconcileID: string) =>
    runs.find((r) => r.fault === fault)!.traces.find((t) => t.reconcileID === reconcileID)!;

  it('a conflict on write converges; the link opens the reconcile the conflict failed', () => {
    const row = rowOf('write-conflict');
    assert.equal(row.title, 'Conflict on write (409)');
    assert.equal(row.converged, true);
    assert.equal(
      row.timeToConverge,
      formatDuration(report.cases.find((c) => c.fault === 'write-conflict')!.timeToConvergeMs!),
    );
    assert.match(row.extraReconciles, /^\+[1-9]/);
    assert.match(row.extraApiCalls, /^\+[1-9]/);
    assert.equal(row.diff, '');
    const t = traceOf('write-conflict', row.wentWrong!.reconcileID);
    assert.equal(t.error?.code, 409);
    assert.ok(t.calls.some((c) => c.fault === 'write-conflict'));
    assert.match(
      row.wentWrong!.label,
      new RegExp(
        `^reconcile #${t.id} of default/\\w+ returned an error: Operation cannot be fulfilled`,
      ),
    );
  });

  it('a 5xx on status converges (the sample returns that error) and links to the failed reconcile', () => {
    const row = rowOf('status-500');
    assert.equal(row.converged, true);
    assert.deepEqual(row.findings, []);
    assert.match(
      row.wentWrong!.label,
      /returned an error: Internal error occurred: injected fault$/,
    );
  });

  it('a stale cache does not converge: no time, findings in words, the diff, the first failed reconcile', () => {
    const row = rowOf('stale-cache');
    assert.equal(row.converged, false);
    assert.equal(row.timeToConverge, '—');
    assert.ok(row.findings.includes("lost status: the final status differs from the baseline's"));
    assert.ok(
      row.findings.some((f) => f.startsWith('conflict storm: ')),
      row.findings.join('; '),
    );
    assert.match(row.diff, /^WebApp default\/\w+: \.status\./m);
    assert.ok(row.wentWrong);
  });

  it('a run the fault left as the baseline was has nothing to link to', () => {
    const row = rowOf('watch-closed');
    assert.equal(row.converged, true);
    assert.equal(row.wentWrong, undefined);
  });

  it('the status write the sample swallows: lost status in words, linked to the reconcile that swallowed', () => {
    const row = rowOf('quota-then-status-500');
    assert.equal(row.title, 'quota-then-status-500', 'an unknown class is shown by its id');
    assert.ok(
      row.findings.includes(
        'lost status: the status write failed and the reconcile returned success',
      ),
      row.findings.join('; '),
    );
    assert.ok(
      row.findings.includes(
        'errors swallowed: a reconcile met an injected failure and returned success',
      ),
    );
    const t = traceOf('quota-then-status-500', row.wentWrong!.reconcileID);
    assert.equal(t.error, undefined);
    assert.match(
      row.wentWrong!.label,
      new RegExp(
        `^reconcile #${t.id} of default/\\w+ met a failure \\(update deployments → 403\\) and returned success$`,
      ),
    );
  });

  it('the view says how many classes did not converge, with the baseline', () => {
    const v = robustnessView(report, runs, 'webapp.reconciler.ts');
    assert.equal(v.status, 'done');
    const failed = report.cases.filter((c) => !c.converged).length;
    assert.ok(failed > 0);
    assert.equal(
      v.message,
      `${failed} of 5 fault classes did not converge to the baseline's state.`,
    );
    assert.equal(v.baseline?.reconciles, report.baseline.reconciles);
    assert.equal(v.rows.length, 5);
  });

  it('opens the debugger on a recorded case at the chosen reconcile, and moves along its timeline', () => {
    const row = rowOf('status-500');
    const run = runs.find((r) => r.fault === 'status-500')!;
    const model = new RecordedRunModel(
      run.traces,
      run.findings,
      'webapp.reconciler.ts',
      'Robustness report, 5xx on status',
      row.wentWrong!.reconcileID,
    );
    const s = model.state();
    assert.equal(s.status, 'stopped');
    assert.equal(s.current?.id, row.wentWrong!.reconcileID);
    assert.equal(s.current?.heldAt, null);
    assert.ok(s.current?.calls.some((c) => c.code === 500 && c.fault === 'status-500'));
    assert.match(
      s.message,
      /^Robustness report, 5xx on status: reconcile #\d+ of default\/\w+, recorded/,
    );
    const key = `${s.current!.request.namespace}/${s.current!.request.name}`;
    assert.deepEqual(
      s.history.map((h) => h.id),
      run.traces
        .filter((t) => t.key === key)
        .slice(0, 50)
        .map((t) => t.reconcileID),
    );
    assert.ok(s.history.find((h) => h.id === row.wentWrong!.reconcileID)?.faults);
    const other = s.history.find((h) => h.id !== row.wentWrong!.reconcileID)!;
    assert.equal(model.inspect(other.id), true);
    assert.equal(model.state().current?.id, other.id);
    assert.equal(model.inspect('no-such-reconcile'), false);
    model.restart();
    assert.equal(model.state().current?.id, row.wentWrong!.reconcileID);
  });
});

describe('whereItWentWrong', () => {
  const trace = (id: number, codes: number[], error?: string): ReconcileTrace =>
    ({
      id,
      reconcileID: `r${id}`,
      key: 'default/a',
      calls: codes.map((code) => ({
        verb: 'get',
        resource: 'x',
        subresource: '',
        namespace: 'default',
        name: 'a',
        code,
      })),
      outcome: error ? 'error' : 'success',
      ...(error ? { error: { message: error } } : {}),
    }) as unknown as ReconcileTrace;

  it('picks the first reconcile that differs from the baseline when none failed', () => {
    const base = [trace(1, [200]), trace(2, [200])];
    const run = [trace(1, [200]), trace(2, [404]), trace(3, [200])];
    assert.deepEqual(
      [whereItWentWrong(run, base)?.trace.id, whereItWentWrong(run, base)?.why],
      [2, 'diverged'],
    );
    assert.equal(whereItWentWrong(base, base), undefined);
    // A run with more reconciles than the baseline's diverges at the first extra one.
    assert.equal(whereItWentWrong([...base, trace(3, [200])], base)?.trace.id, 3);
  });

  it('prefers the first failed reconcile to a divergence before it', () => {
    const base = [trace(1, [200]), trace(2, [200])];
    const run = [trace(1, [404]), trace(2, [500], 'boom')];
    assert.deepEqual(
      [whereItWentWrong(run, base)?.trace.id, whereItWentWrong(run, base)?.why],
      [2, 'erred'],
    );
  });
});

describe("a Go operator's report (real clock)", () => {
  const observed = (id: number, calls: Array<[string, number]>, error?: string): ReconcileTrace =>
    ({
      id,
      reconcileID: `uid-${id}`,
      controller: 'webapp',
      request: { namespace: 'default', name: 'blog' },
      key: 'default/blog',
      worker: 0,
      triggers: [],
      start: id * 100,
      end: id * 100 + 10,
      phases: [{ phase: 'reconcile', at: id * 100, summary: 'Reconcile default/blog' }],
      calls: calls.map(([verb, code]) => ({
        verb,
        resource: 'deployments',
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'default',
        name: 'blog',
        subresource: '',
        code,
        source: 'server',
        at: id * 100 + 5,
        ...(code === 409 ? { fault: 'write-conflict' } : {}),
      })),
      warnings: [],
      outcome: error ? 'error' : 'success',
      ...(error ? { error: { message: error } } : {}),
    }) as unknown as ReconcileTrace;

  const baseline = [
    observed(1, [
      ['get', 200],
      ['update', 200],
    ]),
  ];
  const conflict = [
    observed(
      1,
      [
        ['get', 200],
        ['update', 409],
      ],
      'Operation cannot be fulfilled',
    ),
    observed(2, [
      ['get', 200],
      ['update', 200],
    ]),
  ];
  const report = (steadyAtMs: number | null) => ({
    clock: 'real' as const,
    baseline: { reconciles: 1, apiCalls: 2, steadyAtMs, objects: 2 },
    cases: [
      {
        fault: 'write-conflict',
        converged: true,
        timeToConvergeMs: 1234,
        reconciles: 2,
        apiCalls: 4,
        findings: [],
        diff: '',
      },
      {
        fault: 'status-500',
        converged: false,
        timeToConvergeMs: null,
        reconciles: 1,
        apiCalls: 2,
        findings: ['exited', 'not-settled'],
        diff: 'the manager exited: exit code 1',
      },
    ],
  });
  const runs: RecordedRun[] = [
    { fault: null, traces: baseline },
    { fault: 'write-conflict', traces: conflict },
    { fault: 'status-500', traces: [] },
  ];

  it('notes the real clock, and that a baseline which never settled makes each case a snapshot', () => {
    const v = robustnessView(report(800), runs, 'samples/quota-operator');
    assert.equal(
      v.note,
      'Real clock: timings vary run to run (a Go operator runs against the served cluster).',
    );
    assert.equal(v.baseline?.steadyAt, formatDuration(800));
    const never = robustnessView(report(null), runs, 'samples/quota-operator');
    assert.match(never.note ?? '', /^Real clock: .* The baseline never settled/);
    assert.equal(never.baseline?.steadyAt, '—');
  });

  it("says a Go run's own findings in words and links to the observed reconcile that failed", () => {
    const [ok, bad] = robustnessView(report(800), runs, 'samples/quota-operator').rows;
    assert.equal(ok.timeToConverge, formatDuration(1234));
    assert.equal(ok.extraReconciles, '+1');
    assert.equal(ok.wentWrong?.reconcileID, 'uid-1');
    assert.match(ok.wentWrong!.label, /^reconcile #1 of default\/blog returned an error/);
    assert.deepEqual(bad.findings, [
      'exited: the manager process ended before the run did',
      'not settled: the manager was still writing when the run was cut at its duration (the baseline had settled)',
    ]);
    // A run that recorded no reconcile has none to open.
    assert.equal(bad.wentWrong, undefined);
    const model = new RecordedRunModel(
      conflict,
      [],
      'samples/quota-operator',
      'Robustness report, Conflict on write (409)',
      ok.wentWrong!.reconcileID,
    );
    assert.equal(model.state().current?.id, 'uid-1');
    assert.ok(model.state().current?.calls.some((c) => c.code === 409));
  });

  it('a TypeScript report (virtual clock) has no note', () => {
    const { clock: _clock, ...virtual } = report(800);
    assert.equal(robustnessView(virtual, runs, 'x').note, undefined);
  });
});
