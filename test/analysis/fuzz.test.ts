/**
 * Fuzzing: thousands of seeded random mutations of the fixtures never make the analyzers throw,
 * and a document edited incrementally (tree-sitter Tree.edit + re-parse) yields exactly the
 * findings of a from-scratch parse. Seeded, so a failure reproduces; bounded, so it stays fast.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeTypeScript } from '../../src/analysis/ts/analyze';
import { Workspace } from '../../src/analysis/workspace';
import { seededRandom as prng } from '../../src/util/random';
import { analyzer, FIXTURES } from './helpers';

const TOKENS = [
  '{',
  '}',
  '(',
  ')',
  '\n',
  ';',
  ',',
  ':=',
  '=',
  '&',
  '*',
  '.',
  '"',
  '`',
  '//',
  '/*',
  '*/',
  'err',
  'nil',
  'return',
  'if ',
  'else ',
  'for ',
  'go ',
  'defer ',
  'func ',
  'ctrl.Result{}',
  'ctrl.Result{Requeue: true}',
  'r.Status().Update(ctx, &app)',
  '_ = ',
  'r.Update(ctx, deploy)',
  'r.List(ctx, &l)',
  'time.Sleep(1)',
  'r.Get(ctx, req.NamespacedName, &app)',
  'apierrors.IsForbidden(err)',
  'fmt.Errorf("x")',
  '.Spec.Replicas = 1',
  '//reconcile-studio:ignore all x\n',
  'ctx.client.status().update(w)',
  'await ',
  'finally {',
  'setTimeout(r, 1)',
  '¤',
  '😀',
  '\t',
];

function mutate(text: string, rnd: () => number): string {
  let out = text;
  const n = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(rnd() * (out.length + 1));
    const len = Math.floor(rnd() * 40);
    switch (Math.floor(rnd() * 4)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + len);
        break;
      case 1:
        out = out.slice(0, at) + TOKENS[Math.floor(rnd() * TOKENS.length)] + out.slice(at);
        break;
      case 2: {
        const from = Math.floor(rnd() * out.length);
        out = out.slice(0, at) + out.slice(from, from + len) + out.slice(at);
        break;
      }
      default: {
        const lines = out.split('\n');
        const a = Math.floor(rnd() * lines.length);
        const b = Math.floor(rnd() * lines.length);
        [lines[a], lines[b]] = [lines[b], lines[a]];
        out = lines.join('\n');
      }
    }
  }
  return out;
}

const goCorpus = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.go'))
  .map((f) => readFileSync(join(FIXTURES, f), 'utf8'));
const tsCorpus = [
  readFileSync(
    join(__dirname, '..', '..', 'samples', 'quota-operator', 'reconcilers', 'webapp.reconciler.ts'),
    'utf8',
  ),
];

describe('fuzz', () => {
  it('1,500 random mutations of the Go fixtures never throw', async () => {
    const a = await analyzer();
    const rnd = prng(0x5eed);
    for (let i = 0; i < 1500; i++) {
      const text = mutate(goCorpus[i % goCorpus.length], rnd);
      try {
        const fs = a.analyzeFile('fuzz.go', text);
        for (const f of fs)
          assert.ok(f.range.start.line >= 0 && f.range.end.line >= f.range.start.line);
      } catch (err) {
        assert.fail(`mutation ${i} threw: ${String(err)}\n---\n${text}`);
      }
    }
  });

  it('500 random mutations of a TypeScript reconciler never throw', () => {
    const rnd = prng(0xbee);
    for (let i = 0; i < 500; i++) {
      const text = mutate(tsCorpus[0], rnd);
      assert.doesNotThrow(() => analyzeTypeScript('fuzz.ts', text), `mutation ${i}`);
    }
  });

  it('incremental re-parsing after random edits gives the same findings as a fresh parse', async () => {
    const a = await analyzer();
    const ws = new Workspace(a);
    const rnd = prng(42);
    const path = '/virtual/fuzz_controller.go';
    let text = goCorpus[0];
    ws.openDocument(path, 'go', 1, text);
    ws.analyze(path, {});
    for (let i = 0; i < 200; i++) {
      // One range edit, expressed as LSP does (line/character), applied to our mirror too.
      const start = Math.floor(rnd() * (text.length + 1));
      const end = Math.min(text.length, start + Math.floor(rnd() * 20));
      const insert = rnd() < 0.5 ? TOKENS[Math.floor(rnd() * TOKENS.length)] : '';
      const pos = (o: number) => {
        const before = text.slice(0, o).split('\n');
        return { line: before.length - 1, character: before[before.length - 1].length };
      };
      ws.changeDocument(path, i + 2, [
        { range: { start: pos(start), end: pos(end) }, text: insert },
      ]);
      text = text.slice(0, start) + insert + text.slice(end);
      assert.equal(ws.text(path), text);
      const incremental = ws
        .analyze(path, {})
        .map((f) => `${f.rule}@${f.range.start.line}:${f.range.start.character}`);
      const fresh = a
        .analyzeFile(path, text)
        .map((f) => `${f.rule}@${f.range.start.line}:${f.range.start.character}`);
      assert.deepEqual(incremental, fresh, `edit ${i}`);
      if (text.length < 200) text = goCorpus[i % goCorpus.length];
      if (text.length < 200) ws.openDocument(path, 'go', 1, text);
    }
    ws.dispose();
  });
});
