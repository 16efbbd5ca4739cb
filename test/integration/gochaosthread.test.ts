/**
 * A Go operator's robustness report off the caller's thread, as the editor runs it: the sample's
 * real manager built and run by gochaosworker.ts, its runs' observed traces handed back for the
 * debugger, and a cancel that stops the manager in the middle of a run (its process group gone).
 * Skipped where Go is missing.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ChaosCancelled, runGoChaosInThread } from '../../src/runtime/chaosthread';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { RecordedRunModel } from '../../src/vscode/model/recordedrun';
import { robustnessView } from '../../src/vscode/model/robustnessreport';
import { ROOT } from './serve';
// Zombies do not count: PID 1 may reap a killed manager late (src/util/processgroup.ts).
import { groupAlive } from '../../src/util/processgroup';

const SAMPLE = join(ROOT, 'samples', 'quota-operator');
const opts = {
  moduleDir: SAMPLE,
  manifests: [
    join(SAMPLE, 'config/crd/bases'),
    join(SAMPLE, 'config/samples/apps_v1_webapp_blog.yaml'),
  ],
  durationMs: 15_000,
};

/** Whether any process of the group `pid` is still alive. */

describe('the Go report in its own thread', { timeout: 300_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());

  it(
    'reports the chosen fault classes with every run and its observed traces',
    { skip: goProblem },
    async () => {
      const progress: Array<string | null> = [];
      const managers: Array<number | undefined> = [];
      const { report, runs } = await runGoChaosInThread(
        { ...opts, faults: ['write-conflict'] },
        {
          onRun: (fault, done, total) => {
            progress.push(fault);
            assert.equal(done, progress.length);
            assert.equal(total, 2);
          },
          onManager: (pid) => managers.push(pid),
        },
      );
      assert.equal(report.clock, 'real');
      assert.deepEqual(progress, [null, 'write-conflict']);
      assert.deepEqual(
        runs.map((r) => r.fault),
        [null, 'write-conflict'],
      );
      assert.deepEqual(
        report.cases.map((c) => c.fault),
        ['write-conflict'],
      );
      // Each run's manager was told as it started and as it stopped.
      assert.equal(managers.length, 4, managers.join());
      assert.equal(managers[1], undefined);
      assert.ok(runs[0].traces.length > 0, 'the baseline recorded reconciles');
      assert.ok(runs[0].traces.every((t) => t.reconcileID && t.key === 'default/blog'));
      // The injected 409 is in the case's traces, and the row's link opens the debugger on the
      // reconcile it failed, its calls in the API calls pane.
      assert.ok(
        runs[1].traces.some((t) => t.calls.some((c) => c.code === 409)),
        'a call answered 409 Conflict',
      );
      const view = robustnessView(report, runs, 'samples/quota-operator');
      assert.match(view.note ?? '', /^Real clock: timings vary run to run/);
      const [row] = view.rows;
      // The row links into the debugger only when the case went wrong (diverged, or findings):
      // a conflict the operator retried into the baseline's state offers no link.
      assert.ok(
        !row.wentWrong || row.verdict === 'diverged' || row.findings.length > 0,
        JSON.stringify(row),
      );
      // The recorded run opens on a reconcile picked from the report: the row's, when it links,
      // and the one the 409 failed, its calls in the API calls pane.
      const open = (reconcileID: string) =>
        new RecordedRunModel(
          runs[1].traces,
          runs[1].findings,
          'samples/quota-operator',
          `Robustness report, ${row.title}`,
          reconcileID,
        ).state().current;
      if (row.wentWrong)
        assert.equal(open(row.wentWrong.reconcileID)?.id, row.wentWrong.reconcileID);
      const failed = runs[1].traces.find((t) => t.calls.some((c) => c.code === 409))!.reconcileID;
      const shown = open(failed);
      assert.equal(shown?.id, failed);
      assert.ok(
        shown?.calls.some((c) => c.code === 409),
        JSON.stringify(shown?.calls.map((c) => c.code)),
      );
    },
  );

  it(
    'a cancel in the middle of a run stops its manager and rejects as cancelled',
    { skip: goProblem },
    async () => {
      const ac = new AbortController();
      let pid: number | undefined;
      await assert.rejects(
        runGoChaosInThread(opts, {
          signal: ac.signal,
          onManager: (p) => {
            if (p === undefined || pid !== undefined) return;
            pid = p;
            ac.abort();
          },
          onRun: (fault) => assert.fail(`no run should end after the cancel (${fault})`),
        }),
        ChaosCancelled,
      );
      assert.ok(pid !== undefined, 'the baseline manager started');
      assert.equal(groupAlive(pid), false, 'the manager process group is gone');
    },
  );
});
