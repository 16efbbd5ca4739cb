/**
 * Analysis speed, as ratios against tree-sitter's own parse time measured in the same process:
 *  1. analysis time vs parse time of the same file (goal ≤ 2×);
 *  2. re-analysis after a one-character edit in a 1,000-line file (incremental parse + rules;
 *     goal ≤ 10 ms);
 *  3. linting a workspace of 200 controller files.
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
}

void main();
