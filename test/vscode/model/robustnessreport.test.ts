/**
 * The robustness report's rows and the debugger on a recorded case, from a real report on the
 * sample operator (in-process, virtual clock).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it, before } from 'node:test';
import { INJECTED_QUOTA } from '../../../src/cluster/faults';
import { FAULT_CLASSES, chaos, type ChaosCase, type ChaosReport } from '../../../src/runtime/chaos';
import type { Finding } from '../../../src/runtime/findings';
import type { ReconcileTrace } from '../../../src/runtime/trace';
import { RecordedRunModel } from '../../../src/vscode/model/recordedrun';
import { markCutOff } from '../../../src/runtime/cutoff';
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

  it('a conflict on write converges and offers no debugger link: the 409 it retried is no fault of it', () => {
    const row = rowOf('write-conflict');
    assert.equal(row.title, 'Conflict on write (409)');
    assert.equal(row.converged, true);
    assert.equal(row.verdict, 'converged');
    assert.equal(
      row.timeToConverge,
      formatDuration(report.cases.find((c) => c.fault === 'write-conflict')!.timeToConvergeMs!),
    );
    assert.match(row.extraReconciles, /^\+[1-9]/);
    assert.match(row.extraApiCalls, /^\+[1-9]/);
    assert.equal(row.diff, '');
    assert.equal(row.wentWrong, undefined);
    // The reconcile the conflict failed is there, only not offered as where it went wrong.
    const w = whereItWentWrong(
      runs.find((r) => r.fault === 'write-conflict')!.traces,
      runs.find((r) => r.fault === null)!.traces,
    );
    assert.equal(w?.trace.error?.code, 409);
  });

  it('a 5xx on status converges (the sample returns that error): no findings, no debugger link', () => {
    const row = rowOf('status-500');
    assert.equal(row.converged, true);
    assert.deepEqual(row.findings, []);
    assert.equal(row.wentWrong, undefined);
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
    const row = rowOf('quota-then-status-500');
    const run = runs.find((r) => r.fault === 'quota-then-status-500')!;
    const model = new RecordedRunModel(
      run.traces,
      run.findings,
      'webapp.reconciler.ts',
      'Robustness report, quota then 5xx on status',
      row.wentWrong!.reconcileID,
    );
    const s = model.state();
    assert.equal(s.status, 'stopped');
    assert.equal(s.current?.id, row.wentWrong!.reconcileID);
    assert.equal(s.current?.heldAt, null);
    assert.ok(s.current?.calls.some((c) => c.code === 403 && c.fault === 'quota'));
    assert.match(
      s.message,
      /^Robustness report, quota then 5xx on status: reconcile #\d+ of default\/\w+, recorded/,
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
      warnings: [],
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

  it("leaves out the reconciles the run's end cut off: context canceled, or marked so", () => {
    const base = [trace(1, [200]), trace(2, [200])];
    const canceled = trace(
      2,
      [200],
      'client rate limiter Wait returned an error: context canceled',
    );
    assert.equal(whereItWentWrong([trace(1, [200]), canceled], base), undefined);
    const marked = trace(3, [200], 'Internal error occurred: stopped');
    markCutOff([marked], 0);
    assert.equal(whereItWentWrong([...base, marked], base), undefined);
    // An error before the stop is still the cause.
    const failed = { ...trace(2, [500], 'Internal error occurred: injected fault'), end: 5 };
    markCutOff([failed], 6);
    assert.equal(whereItWentWrong([trace(1, [200]), failed, canceled], base)?.why, 'erred');
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
        ...(code === 429 ? { fault: 'throttling' } : {}),
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
  // Throttled, then stopped while waiting out a Retry-After: the stop's error comes last.
  const throttled = [
    observed(1, [
      ['get', 200],
      ['update', 200],
    ]),
    observed(2, [['get', 500]]),
    observed(3, [['update', 429]], 'client rate limiter Wait returned an error: context canceled'),
  ];
  const cases = (settled: boolean): ChaosCase[] => [
    {
      fault: 'write-conflict',
      converged: true,
      timeToConvergeMs: settled ? 1234 : null,
      settled,
      reconciles: 2,
      apiCalls: 4,
      findings: [],
      diff: '',
    },
    {
      fault: 'status-500',
      converged: false,
      timeToConvergeMs: null,
      settled: false,
      reconciles: 1,
      apiCalls: 2,
      findings: ['exited', 'not-settled'],
      diff: 'the manager exited: exit code 1',
    },
    {
      fault: 'throttling',
      converged: false,
      timeToConvergeMs: null,
      settled,
      reconciles: 3,
      apiCalls: 4,
      findings: [],
      diff: 'WebApp default/blog: .status.readyReplicas: 1 → (none)',
    },
  ];
  const report = (steadyAtMs: number | null, findings: string[] = []) => ({
    clock: 'real' as const,
    durationMs: 5000,
    settleMs: 2500,
    baseline: { reconciles: 1, apiCalls: 2, steadyAtMs, objects: 2, findings },
    cases: cases(steadyAtMs !== null),
  });
  const runs: RecordedRun[] = [
    { fault: null, traces: baseline },
    { fault: 'write-conflict', traces: conflict },
    { fault: 'status-500', traces: [] },
    { fault: 'throttling', traces: throttled },
  ];
  const rows = (r: ReturnType<typeof report>) =>
    Object.fromEntries(
      robustnessView(r, runs, 'samples/quota-operator').rows.map((x) => [x.fault, x]),
    );

  it('says it judged the Go operator on the real clock, a TypeScript report the embedded runtime', () => {
    const v = robustnessView(report(800), runs, 'samples/quota-operator');
    assert.equal(v.runtime, 'Go operator (its manager, run on the real clock)');
    assert.equal(
      v.note,
      'Real clock: timings vary run to run (a Go operator runs against the served cluster).',
    );
    const { clock: _clock, ...virtual } = report(800);
    const ts = robustnessView(virtual, runs, 'x');
    assert.equal(ts.note, undefined);
    assert.match(ts.runtime ?? '', /^TypeScript reconciler/);
  });

  it('a settled baseline: its steady time, and a settled case converged at its time', () => {
    const v = robustnessView(report(800), runs, 'samples/quota-operator');
    assert.equal(v.baseline?.steadyAt, formatDuration(800));
    assert.equal(v.baseline?.unsettled, undefined);
    const r = rows(report(800));
    assert.equal(r['write-conflict'].verdict, 'converged');
    assert.equal(r['write-conflict'].timeToConverge, formatDuration(1234));
    assert.equal(v.message, "2 of 3 fault classes did not converge to the baseline's state.");
  });

  it('a baseline cut off before it settled says so, how long it was watched, and no case claims to have converged', () => {
    const v = robustnessView(report(null, ['hot-loop']), runs, 'samples/quota-operator');
    assert.equal(v.baseline?.steadyAt, '—');
    assert.equal(
      v.baseline?.unsettled,
      'never settled: the manager was still writing when its run was cut off after 5s (a run settles after 2.5s with no write and no requeue due); it hot-loops on its own, so it cannot settle',
    );
    assert.match(v.note ?? '', /^Real clock: .* The baseline never settled/);
    const waiting = report(null);
    waiting.baseline = { ...waiting.baseline, cutOffBy: 'requeue' } as typeof waiting.baseline;
    assert.match(
      robustnessView(waiting, runs, 'x').baseline?.unsettled ?? '',
      /^never settled: a requeue the manager had asked for was still due when its run was cut off after 5s/,
    );
    const r = rows(report(null));
    // In the baseline's state as it stood: a snapshot, not a convergence, and said so.
    assert.equal(r['write-conflict'].verdict, 'unsettled');
    assert.equal(r['write-conflict'].converged, true);
    assert.equal(r['write-conflict'].timeToConverge, 'not settled in 5s');
    assert.ok(v.rows.every((x) => x.verdict !== 'converged'));
    assert.equal(
      v.message,
      "2 of 3 fault classes did not converge to the baseline's state. 1 of 3 matched the baseline's state without settling, so whether they converge is not known: the baseline never settled: every run was compared as it stood when cut off after 5s.",
    );
  });

  it('a case cut off in the state of a settled baseline is not said to have converged either', () => {
    const r = report(800);
    r.cases[0] = { ...r.cases[0], settled: false, timeToConvergeMs: null };
    const row = rows(r)['write-conflict'];
    assert.equal(row.verdict, 'unsettled');
    assert.equal(row.timeToConverge, 'not settled in 5s');
  });

  it('only a row that went wrong links to the debugger', () => {
    const r = rows(report(800));
    assert.equal(r['write-conflict'].wentWrong, undefined, 'converged: nothing went wrong');
    // A run that recorded no reconcile has none to open.
    assert.equal(r['status-500'].wentWrong, undefined);
    assert.ok(r.throttling.wentWrong);
    // Converged with a finding went wrong too: the link names the reconcile.
    const withFinding = report(800);
    withFinding.cases[0] = { ...withFinding.cases[0], findings: ['errors-swallowed'] };
    const linked = rows(withFinding)['write-conflict'].wentWrong;
    assert.equal(linked?.reconcileID, 'uid-1');
    assert.match(linked!.label, /^reconcile #1 of default\/blog returned an error/);
    const model = new RecordedRunModel(
      conflict,
      [],
      'samples/quota-operator',
      'Robustness report, Conflict on write (409)',
      linked!.reconcileID,
    );
    assert.equal(model.state().current?.id, 'uid-1');
    assert.ok(model.state().current?.calls.some((c) => c.code === 409));
  });

  it("never cites the run's own stop (context canceled) as what went wrong", () => {
    const w = rows(report(800)).throttling.wentWrong!;
    assert.equal(w.reconcileID, 'uid-2');
    assert.doesNotMatch(w.label, /context canceled/);
    assert.match(w.label, /^reconcile #2 of default\/blog is the first to differ/);
  });

  it("says a Go run's own findings in words", () => {
    assert.deepEqual(rows(report(800))['status-500'].findings, [
      'exited: the manager process ended before the run did',
      'not settled: the manager was still writing when the run was cut at its duration (the baseline had settled)',
    ]);
  });
});
