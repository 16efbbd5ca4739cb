/**
 * Every finding's first sentence fits the Problems panel (≤ HEADLINE_MAX characters) and the rest
 * reaches the hover; no rule defaults to error (what they find compiles and runs).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { detail, headline, HEADLINE_MAX } from '../../src/analysis/diagnostics';
import { goHover } from '../../src/analysis/hover';
import { toDiagnostic } from '../../src/analysis/lsp';
import { RULES } from '../../src/analysis/rules';
import { lintPaths } from '../../src/cli/lint';
import { analyzer, controller, findings, FIXTURES } from './helpers';

const SAMPLE = join(__dirname, '..', '..', 'samples', 'quota-operator');

describe('wording and severity', () => {
  it('splits a message after its first sentence, not at a dot inside a name', () => {
    const m = 'The error of Status().Update is dropped. If the write fails, nothing retries it.';
    assert.equal(headline(m), 'The error of Status().Update is dropped.');
    assert.equal(detail(m), 'If the write fails, nothing retries it.');
  });

  it('every finding on the fixtures and the sample has a short first sentence and a detail', async () => {
    const { findings: fs } = await lintPaths([FIXTURES, SAMPLE]);
    const rules = new Set(fs.map((f) => f.rule));
    assert.deepEqual([...rules].sort(), RULES.map((r) => r.id).sort(), 'every rule is exercised');
    for (const f of fs) {
      const h = headline(f.message);
      assert.ok(h.length <= HEADLINE_MAX, `${f.rule}: ${h.length} characters: ${h}`);
      assert.ok(detail(f.message).length > 0, `${f.rule}: no detail after ${h}`);
    }
  });

  it('the diagnostic carries the first sentence and the hover the rest', async () => {
    const text = controller('_ = r.Status().Update(ctx, &app)');
    const [f] = await findings(text);
    assert.equal(toDiagnostic(f).message, 'The error of Status().Update is dropped.');
    const a = await analyzer();
    const file = a.parseGo('controller.go', text);
    try {
      const at = text.indexOf('r.Status().Update');
      const hover = goHover([file], file, at, [f]);
      assert.ok(hover?.markdown.includes(detail(f.message)));
    } finally {
      file.tree.delete();
    }
  });

  it('no rule defaults to error', () => {
    assert.deepEqual(
      RULES.filter((r) => r.defaultSeverity === 'error').map((r) => r.id),
      [],
    );
  });
});
