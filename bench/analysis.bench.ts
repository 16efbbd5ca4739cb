/**
 * Analysis speed, as ratios against tree-sitter's own parse time measured in the same process:
 *  1. analysis time vs parse time of the same file (goal ≤ 2×);
 *  2. re-analysis after a one-character edit in a 1,000-line file (incremental parse + rules;
 *     goal ≤ 10 ms);
 *  3. linting a workspace of 200 controller files;
 *  4. module-wide analysis (calls followed into the module's other packages through function
 *     summaries) against the same files linted package by package (no go.mod: nothing followed,
 *     today's analysis), in paired interleaved rounds (BENCH_ANALYSIS_ROUNDS, default 121), and
 *     re-analysis after a one-character edit of a 1,000-line file inside that module.
 * Prints figures only; nothing asserts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Analyzer } from '../src/analysis/analyzer';
import { analyzeGoPackage } from '../src/analysis/go/analyze';
import { createGoParser, parseGo } from '../src/analysis/go/parser';
import { TreeCopier } from '../src/analysis/go/tree';
import { LineIndex } from '../src/analysis/text';
import { summaryStats } from '../src/analysis/go/summary';
import { Workspace } from '../src/analysis/workspace';
import { lintPaths } from '../src/cli/lint';

const ROOT = join(__dirname, '..');
const FIX = join(ROOT, 'test', 'analysis', 'fixtures');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => void, runs: number): number {
  for (let i = 0; i < Math.min(20, runs); i++) fn(); // warm up
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

/** A 1,000-line package file: the sample controller repeated with distinct receiver types. */
function bigFile(lines: number): string {
  const seed = readFileSync(join(FIX, 'seed_controller.go'), 'utf8');
  const body = seed.slice(seed.indexOf('type MyReconciler'));
  const head = seed.slice(0, seed.indexOf('type MyReconciler'));
  let out = head;
  for (let i = 0; out.split('\n').length < lines; i++) {
    out += body
      .replaceAll('MyReconciler', `R${i}Reconciler`)
      .replaceAll('buildDesiredDeployment', `build${i}`);
  }
  return out;
}

async function main(): Promise<void> {
  const a = await Analyzer.create();
  const parser = await createGoParser();
  /**
   * tree-sitter's parse alone vs our analysis of the parsed tree (JS copy + every rule), measured
   * alternately so that load from other processes hits both sides alike.
   */
  const compare = (label: string, text: string, runs: number): number => {
    const tree = parseGo(parser, text);
    const parseOnce = (): void => parseGo(parser, text).delete();
    const analyzeOnce = (): void => {
      const root = new TreeCopier().copy(tree, text);
      analyzeGoPackage([{ path: 'x.go', text, tree, root, lines: new LineIndex(text) }]);
    };
    for (let i = 0; i < 20; i++) {
      parseOnce();
      analyzeOnce();
    }
    const parses: number[] = [];
    const analyses: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      parseOnce();
      parses.push(performance.now() - t);
      t = performance.now();
      analyzeOnce();
      analyses.push(performance.now() - t);
    }
    tree.delete();
    const parse = median(parses);
    const analyze = median(analyses);
    console.log(
      `  ${label.padEnd(34)} parse ${parse.toFixed(3)} ms  analysis ${analyze.toFixed(3)} ms  ratio ${(analyze / parse).toFixed(2)}×`,
    );
    return parse;
  };
  console.log('analysis vs tree-sitter parse of the same file (median)');
  for (const name of ['seed_controller.go', 'kubebuilder_good_controller.go']) {
    compare(name, readFileSync(join(FIX, name), 'utf8'), 300);
  }
  const big = bigFile(1000);
  {
    const parse = compare(`generated ${big.split('\n').length}-line file`, big, 50);

    console.log(
      '\nre-analysis after a one-character edit (1,000-line file, incremental parse + rules)',
    );
    const ws = new Workspace(a);
    const path = '/virtual/big_controller.go';
    ws.openDocument(path, 'go', 1, big);
    ws.analyze(path, {});
    const line = big.split('\n').findIndex((l) => l.includes('actualReplicas :='));
    let version = 2;
    let toggle = false;
    const edit = time(() => {
      // Insert then remove one character, alternately, so the text stays the same size.
      toggle = !toggle;
      const range = toggle
        ? { start: { line, character: 1 }, end: { line, character: 1 } }
        : { start: { line, character: 1 }, end: { line, character: 2 } };
      ws.changeDocument(path, version++, [{ range, text: toggle ? 'x' : '' }]);
      ws.analyze(path, {});
    }, 200);
    console.log(
      `  edit + incremental re-analysis ${edit.toFixed(3)} ms  (goal ≤ 10 ms: ${(edit / 10).toFixed(2)}× of the budget; full parse ${parse.toFixed(3)} ms)`,
    );
    ws.dispose();
  }

  console.log('\nworkspace of 200 controller files (lint: read, parse, analyze)');
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-'));
  try {
    const sources = [
      'seed_controller.go',
      'kubebuilder_good_controller.go',
      'scaffold_controller.go',
    ].map((n) => readFileSync(join(FIX, n), 'utf8'));
    for (let i = 0; i < 200; i++) {
      const pkg = join(dir, `pkg${i % 40}`);
      mkdirSync(pkg, { recursive: true });
      const src = sources[i % sources.length]
        .replace(/(\w+)Reconciler\b/g, `$1${i}Reconciler`)
        .replace(/buildDesiredDeployment/g, `build${i}`);
      writeFileSync(join(pkg, `c${i}_controller.go`), src);
    }
    await lintPaths([dir]);
    const t0 = performance.now();
    const { findings } = await lintPaths([dir]);
    const total = performance.now() - t0;
    const texts = sources.map((s) => s);
    const parseAll = time(() => {
      for (let i = 0; i < 200; i++) a.parseGo('x.go', texts[i % texts.length]).tree.delete();
    }, 5);
    console.log(
      `  200 files: ${total.toFixed(0)} ms total, ${(total / 200).toFixed(2)} ms per file, ${findings.length} findings; parsing alone ${parseAll.toFixed(0)} ms (ratio ${(total / parseAll).toFixed(2)}×)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  await moduleWide(a);
}

/** The helper packages of the generated module: status, waits, and the API type's defaults. */
const MODULE_FILES: Record<string, string> = {
  'api/v1/shop_types.go': `package v1

type Shop struct {
\tSpec   ShopSpec
\tStatus ShopStatus
}
type ShopSpec struct{ Replicas *int32 }
type ShopStatus struct{ Phase string }

func (s *Shop) SetDefaults() {
\tif s.Spec.Replicas == nil {
\t\tone := int32(1)
\t\ts.Spec.Replicas = &one
\t}
}
`,
  'internal/common/status.go': `package common

import (
\t"context"

\t"sigs.k8s.io/controller-runtime/pkg/client"
\t"sigs.k8s.io/controller-runtime/pkg/log"
)

func UpdateStatus(ctx context.Context, c client.Client, obj client.Object) {
\tif err := c.Status().Update(ctx, obj); err != nil {
\t\tlog.FromContext(ctx).Error(err, "status")
\t}
}

func SetStatus(ctx context.Context, c client.Client, obj client.Object) error {
\treturn c.Status().Update(ctx, obj)
}
`,
  'pkg/waitutil/wait.go': `package waitutil

import (
\t"context"
\t"time"

\t"k8s.io/apimachinery/pkg/util/wait"
)

func ForReady(ctx context.Context, ready func() bool) error {
\treturn wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true,
\t\tfunc(context.Context) (bool, error) { return ready(), nil })
}
`,
};

/** One controller of the module: every kind of call into it, under receiver type `name`. */
function moduleController(name: string): string {
  return `
type ${name} struct {
\tclient.Client
}

func (r *${name}) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
\tshop := &shopv1.Shop{}
\tif err := r.Get(ctx, req.NamespacedName, shop); err != nil {
\t\treturn ctrl.Result{}, client.IgnoreNotFound(err)
\t}
\tdefer common.SetStatus(ctx, r.Client, shop)
\tshop.SetDefaults()
\tif err := r.Update(ctx, shop); err != nil {
\t\treturn ctrl.Result{}, err
\t}
\tif err := waitutil.ForReady(ctx, func() bool { return true }); err != nil {
\t\treturn ctrl.Result{}, err
\t}
\tactual := int32(0)
\tshop.Status.Phase = "Ready"
\tcommon.UpdateStatus(ctx, r.Client, shop)
\t_ = actual
\treturn ctrl.Result{}, nil
}
`;
}

const MODULE_HEAD = `package controller

import (
\t"context"

\tctrl "sigs.k8s.io/controller-runtime"
\t"sigs.k8s.io/controller-runtime/pkg/client"

\tshopv1 "example.com/shop/api/v1"
\t"example.com/shop/internal/common"
\t"example.com/shop/pkg/waitutil"
)
`;

/**
 * 200 controller files in 40 packages calling into the module, linted with go.mod (module-wide)
 * and without (each package alone, the calls into the module unresolved): the cost of following
 * the module. Then a 1,000-line controller of that module edited one character at a time.
 */
async function moduleWide(a: Analyzer): Promise<void> {
  console.log(
    '\nmodule-wide analysis: 200 controller files in 40 packages calling into the module',
  );
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-mod-'));
  try {
    for (const [path, text] of Object.entries(MODULE_FILES)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    for (let i = 0; i < 200; i++) {
      const pkg = join(dir, 'internal', `c${i % 40}`);
      mkdirSync(pkg, { recursive: true });
      writeFileSync(
        join(pkg, `c${i}_controller.go`),
        MODULE_HEAD + moduleController(`C${i}Reconciler`),
      );
    }
    // Module-wide (go.mod present: calls followed into the module's packages) against the same
    // files linted per package (no go.mod: today's analysis, nothing followed), in the same
    // process. Rounds are paired and interleaved (ABBA: the side that goes first alternates) with
    // a collection before each lint, so drift in machine load, JIT warm-up and garbage left by
    // the other side hit both alike; the ratio is the mean of the middle half of the per-round
    // ratios (a burst of load in a round falls outside it), printed with that half's range so that
    // a reader can see how steady it was.
    const rounds = Number(process.env.BENCH_ANALYSIS_ROUNDS ?? 121);
    const gc = (globalThis as { gc?: () => void }).gc;
    const modFile = join(dir, 'go.mod');
    interface Lint {
      ms: number;
      cpu: number;
      findings: number;
    }
    const lint = async (module: boolean): Promise<Lint> => {
      if (module) writeFileSync(modFile, 'module example.com/shop\n\ngo 1.24\n');
      else rmSync(modFile, { force: true });
      gc?.();
      const t = performance.now();
      const c = process.cpuUsage();
      const { findings } = await lintPaths([join(dir, 'internal')]);
      const used = process.cpuUsage(c);
      return {
        ms: performance.now() - t,
        cpu: (used.user + used.system) / 1000,
        findings: findings.length,
      };
    };
    for (let i = 0; i < 5; i++) {
      await lint(true);
      await lint(false);
    }
    const withMod: Lint[] = [];
    const without: Lint[] = [];
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        withMod.push(await lint(true));
        without.push(await lint(false));
      } else {
        without.push(await lint(false));
        withMod.push(await lint(true));
      }
    }
    const q = (xs: number[], p: number): number =>
      [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    /** The mean of the middle half: a burst of load on either side of a round falls outside. */
    const midMean = (xs: number[]): number => {
      const s = [...xs].sort((a, b) => a - b);
      const mid = s.slice(Math.floor(s.length / 4), Math.ceil((s.length * 3) / 4));
      return mid.reduce((a, b) => a + b, 0) / mid.length;
    };
    // CPU time is the headline: the machine's cores are shared, and wall time takes in whatever
    // else runs; CPU time of this process (its GC threads too) is what the analysis costs.
    const report = (label: string, of: (l: Lint) => number): void => {
      const ratios = withMod.map((m, i) => of(m) / of(without[i]));
      console.log(
        `  ${label.padEnd(9)} module-wide ${median(withMod.map(of)).toFixed(0)} ms  per package ${median(without.map(of)).toFixed(0)} ms  ratio ${midMean(ratios).toFixed(2)}× (mean of the middle half of the rounds' ratios, which run ${q(ratios, 0.25).toFixed(2)}–${q(ratios, 0.75).toFixed(2)})`,
      );
    };
    console.log(
      `  ${rounds} paired rounds; ${withMod[0].findings} findings module-wide, ${without[0].findings} per package; goal ≤ 1.3×`,
    );
    report('CPU time', (l) => l.cpu);
    report('wall time', (l) => l.ms);

    // A 1,000-line controller inside the module, edited one character at a time.
    writeFileSync(modFile, 'module example.com/shop\n\ngo 1.24\n');
    let big = MODULE_HEAD;
    for (let i = 0; big.split('\n').length < 1000; i++)
      big += moduleController(`Big${i}Reconciler`);
    const path = join(dir, 'internal', 'big', 'big_controller.go');
    mkdirSync(join(dir, 'internal', 'big'), { recursive: true });
    writeFileSync(path, big);
    const ws = new Workspace(a);
    ws.openDocument(path, 'go', 1, big);
    const first = ws.analyze(path, {}).length;
    const line = big.split('\n').findIndex((l) => l.includes('actual := int32(0)'));
    let version = 2;
    let toggle = false;
    const before = { ...summaryStats };
    const edit = time(() => {
      toggle = !toggle;
      const range = toggle
        ? { start: { line, character: 1 }, end: { line, character: 1 } }
        : { start: { line, character: 1 }, end: { line, character: 2 } };
      ws.changeDocument(path, version++, [{ range, text: toggle ? 'x' : '' }]);
      ws.analyze(path, {});
    }, 200);
    const computed = summaryStats.computed - before.computed;
    const reused = summaryStats.reused - before.reused;
    console.log(
      `  ${big.split('\n').length}-line file of the module (${first} findings): edit + re-analysis ${edit.toFixed(3)} ms (goal ≤ 10 ms: ${(edit / 10).toFixed(2)}× of the budget); summaries over 220 edits: ${computed} computed, ${reused} reused`,
    );
    ws.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
