/**
 * Function summaries across the module (go/summary.ts): findings name what the helper does and
 * where, the longest wait is computed from the call's arguments, and a summary is computed once
 * and reused until the file holding its function (or a callee's) changes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintPaths } from '../../src/cli/lint';
import { summaryStats } from '../../src/analysis/go/summary';
import { Workspace } from '../../src/analysis/workspace';
import { analyzer, findings, FIXTURES } from './helpers';

const SHAPES = join(FIXTURES, 'shapes');
const WAITS = join(SHAPES, 'blocking_wrappers_of_the_module');
const CONTROLLER = join(WAITS, 'internal', 'controller', 'shop_controller.go');
const HELPER = join(WAITS, 'pkg', 'waitutil', 'wait.go');

function messages(fs: { rule: string; message: string }[], rule: string): string[] {
  return fs.filter((f) => f.rule === rule).map((f) => f.message);
}

describe('summaries: what a call into the module does', () => {
  it('names the longest wait of a module wait wrapper and where it waits', async () => {
    const { findings: fs } = await lintPaths([WAITS]);
    const ms = messages(fs, 'blocking-sleep');
    assert.equal(ms.length, 2);
    for (const m of ms) {
      assert.match(m, /holds this reconcile worker for up to 1m0s\./);
      assert.match(m, /wait\.PollUntilContextTimeout at \.\.\/\.\.\/pkg\/waitutil\/wait\.go:16/);
    }
  });

  it('names the timeout of the context a wait until its context ends is handed', async () => {
    const { findings: fs } = await lintPaths([
      join(SHAPES, 'blocking_waits_until_context_timeout'),
    ]);
    const ms = messages(fs, 'blocking-sleep');
    assert.equal(ms.length, 3);
    // Through two helpers of the module that pass the context on, from a 2-minute context.
    assert.match(
      ms[0],
      /^poll\.Until holds this reconcile worker for up to 2m0s\..*bound: its context's timeout/,
    );
    // The request's context: no deadline known here.
    assert.match(
      ms[1],
      /^poll\.Until holds this reconcile worker for the whole wait\..*bound: until its condition holds or its context ends/,
    );
    // A poll of this package on a 30-second context.
    assert.match(
      ms[2],
      /^wait\.PollUntilContextCancel holds this reconcile worker for up to 30s\. Bound: its context's timeout\./,
    );
  });

  it('names the deadline a module helper’s wait loop is handed as a constant', async () => {
    const { findings: fs } = await lintPaths([
      join(SHAPES, 'blocking_waits_until_deadline_argument'),
    ]);
    const ms = messages(fs, 'blocking-sleep');
    assert.equal(ms.length, 2);
    // 90 s handed on through Join, plus the last 2-second sleep.
    assert.match(
      ms[0],
      /^nodes\.Join holds this reconcile worker for up to 1m32s\..*a loop until the deadline handed in, 1m30s away/,
    );
    assert.match(
      ms[1],
      /^nodes\.WaitJoined holds this reconcile worker for the whole wait\..*its argument, in a loop/,
    );
  });

  it('computes retry libraries’ longest waits from their options and defaults', async () => {
    const text = readFileSync(join(SHAPES, 'blocking_retry_libraries.go'), 'utf8');
    const ms = messages(await findings(text, 'c.go'), 'blocking-sleep');
    // retry-go: 9 sleeps of 100ms doubling, each plus up to 100ms jitter.
    assert.match(ms[0], /^retrygo\.Do holds this reconcile worker for up to 52s\./);
    assert.match(ms[1], /^backoff\.Retry holds this reconcile worker for up to 15m0s\./);
    // wait.Backoff{Steps: 6, Duration: 1s, Factor: 2}: five sleeps, 1+2+4+8+16 s.
    assert.match(ms[2], /^retry\.OnError holds this reconcile worker for up to 31s\./);
    // time.Sleep(2s) in `for range 3`.
    assert.match(
      ms[3],
      /^time\.Sleep holds this reconcile worker for up to 6s\..*3 times in a loop/,
    );
  });

  it('names the API type method that changes the spec, and where', async () => {
    const { findings: fs } = await lintPaths([join(SHAPES, 'spec_defaults_by_api_method')]);
    const [m] = messages(fs, 'spec-write');
    assert.match(m, /^shop\.SetDefaults changes shop\.Spec\.Replicas and the Update that follows/);
    assert.match(m, /api\/v1\/shop_types\.go:28/);
  });

  it('reuses summaries after an edit elsewhere, and recomputes the edited file’s', async () => {
    const ws = new Workspace(await analyzer());
    try {
      const text = readFileSync(CONTROLLER, 'utf8');
      ws.openDocument(CONTROLLER, 'go', 1, text);
      const only = { only: new Set(['blocking-sleep']) };
      assert.equal(ws.analyze(CONTROLLER, only).length, 2);

      // A keystroke in the controller: the helper file's summaries are reused, not recomputed.
      const line = text.split('\n').findIndex((l) => l.includes('ready := func()'));
      ws.changeDocument(CONTROLLER, 2, [
        { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: ' ' },
      ]);
      const before = summaryStats.computed;
      assert.equal(ws.analyze(CONTROLLER, only).length, 2);
      assert.equal(summaryStats.computed, before);

      // The helper edited to wait 5 minutes: its summaries are computed again, the message follows.
      const helper = readFileSync(HELPER, 'utf8').replace('time.Minute', '5 * time.Minute');
      ws.openDocument(HELPER, 'go', 1, helper);
      const ms = ws.analyze(CONTROLLER, only).map((f) => f.message);
      assert.ok(summaryStats.computed > before);
      assert.equal(ms.length, 2);
      for (const m of ms) assert.match(m, /for up to 5m0s\./);
    } finally {
      ws.dispose();
    }
  });
});
