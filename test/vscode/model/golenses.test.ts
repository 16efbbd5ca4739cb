import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { GO_OPERATOR_LENSES, goOperatorLensOffsets } from '../../../src/vscode/model/golenses';

const SAMPLE = join(__dirname, '..', '..', '..', 'samples', 'quota-operator');
const lines = (text: string) =>
  goOperatorLensOffsets(text).map((o) => text.slice(o, text.indexOf('\n', o)));

describe('Run Go Operator code lenses', () => {
  it('offer to run the operator and to debug it, each a command the extension contributes', () => {
    const pkg = JSON.parse(readFileSync(join(SAMPLE, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { commands: Array<{ command: string; title: string }> };
    };
    const titles = new Map(pkg.contributes.commands.map((c) => [c.command, c.title]));
    assert.deepEqual(
      GO_OPERATOR_LENSES.map((l) => l.title),
      ['Run Go Operator', 'Debug Go Operator'],
    );
    for (const l of GO_OPERATOR_LENSES) assert.equal(titles.get(l.command), l.title);
  });

  it("go over the sample manager's main", () => {
    assert.deepEqual(lines(readFileSync(join(SAMPLE, 'cmd', 'main.go'), 'utf8')), [
      'func main() {',
    ]);
  });

  it("go over the sample controller's Reconcile", () => {
    const found = lines(
      readFileSync(join(SAMPLE, 'internal', 'controller', 'webapp_controller.go'), 'utf8'),
    );
    assert.equal(found.length, 1);
    assert.match(found[0], /^func \(r \*WebAppReconciler\) Reconcile\(ctx context\.Context,/);
  });

  it('skip a main that is not a controller-runtime manager, and other methods', () => {
    const text =
      'package main\n\nimport "fmt"\n\nfunc main() {}\n\nfunc (s *S) Run(ctx context.Context) {}\n';
    assert.deepEqual(goOperatorLensOffsets(text), []);
  });
});
