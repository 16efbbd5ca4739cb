/**
 * Big packages are analyzed whole, and when a bound does cut an analysis short it is said, naming
 * the function where the analysis stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeGoPackage } from '../../src/analysis/go/analyze';
import type { GoFile } from '../../src/analysis/go/package';
import { analyzer, controller } from './helpers';

/**
 * A package of `count` helpers spread over five files: Reconcile calls step0, each step calls the
 * next, and the last one drops a status write error (the finding at the far end of the path).
 */
function chainPackage(count: number): { path: string; text: string }[] {
  const steps: string[] = [];
  for (let i = 0; i < count; i++) {
    const next =
      i + 1 < count
        ? `\treturn r.step${i + 1}(ctx, app)`
        : '\t_ = r.Status().Update(ctx, app)\n\treturn nil';
    steps.push(
      `func (r *WebAppReconciler) step${i}(ctx context.Context, app *webv1.WebApp) error {\n${next}\n}\n`,
    );
  }
  const head =
    'package controller\n\nimport (\n\t"context"\n\n\twebv1 "example.com/web/api/v1"\n)\n\n';
  const files = [
    {
      path: 'controller.go',
      text: controller(
        'if err := r.step0(ctx, &app); err != nil {\n\treturn ctrl.Result{}, err\n}',
      ),
    },
  ];
  const per = Math.ceil(count / 5);
  for (let f = 0; f < 5; f++) {
    files.push({
      path: `steps${f}.go`,
      text: head + steps.slice(f * per, (f + 1) * per).join('\n'),
    });
  }
  return files;
}

async function analyze(
  sources: { path: string; text: string }[],
  maxPathFuncs?: number,
): Promise<{ rules: string[]; files: string[]; log: string[] }> {
  const a = await analyzer();
  const files: GoFile[] = sources.map((s) => a.parseGo(s.path, s.text));
  const log: string[] = [];
  try {
    const out = analyzeGoPackage(files, { maxPathFuncs, log: (l) => log.push(l) });
    return { rules: out.map((f) => f.rule), files: out.map((f) => f.file), log };
  } finally {
    for (const f of files) f.tree.delete();
  }
}

describe('package bounds', () => {
  it('follows a path through 500 helpers in five files and reports at its far end', async () => {
    const { rules, files, log } = await analyze(chainPackage(500));
    assert.deepEqual(rules, ['status-error-ignored']);
    assert.deepEqual(files, ['steps4.go']);
    assert.deepEqual(log, []);
  });

  it('follows a 1,200-function package whole', async () => {
    const { rules, log } = await analyze(chainPackage(1200));
    assert.deepEqual(rules, ['status-error-ignored']);
    assert.deepEqual(log, []);
  });

  it('says where it stopped when the bound is hit, naming the function and the call', async () => {
    const { rules, log } = await analyze(chainPackage(50), 20);
    assert.deepEqual(rules, []);
    assert.equal(log.length, 1);
    assert.match(
      log[0],
      /^steps1\.go:\d+: analysis of WebAppReconciler\.Reconcile stopped at WebAppReconciler\.step18: its call of step19 was not followed/,
    );
  });
});
