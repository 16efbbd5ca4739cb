import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ruleDoc } from '../../src/analysis/hover';
import { RULES } from '../../src/analysis/rules';

const DOCS = join(__dirname, '..', '..', 'docs', 'rules');

describe('rule pages', () => {
  for (const rule of RULES) {
    it(`docs/rules/${rule.id}.md explains why it hurts, shows an example and the fix`, () => {
      const path = join(DOCS, `${rule.id}.md`);
      assert.ok(existsSync(path));
      const md = readFileSync(path, 'utf8');
      assert.match(md, new RegExp(`^# ${rule.id}\\n`));
      for (const section of ['## Why it hurts', '## Example', '## Fix'])
        assert.ok(md.includes(section), section);
      assert.ok(md.includes(`**Default severity:** ${rule.defaultSeverity}`));
    });
  }
  it('hover finds the pages from the source tree', () => {
    assert.match(ruleDoc('spec-write') ?? '', /# spec-write/);
  });
});
