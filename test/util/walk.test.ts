/** The one recursive directory walk: name order, which directories to enter, bounds, links. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { walkFiles } from '../../src/util/walk';

describe('walkFiles', () => {
  let root: string;
  const rel = (paths: string[]) => paths.map((p) => relative(root, p));
  const all = () => true;

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'walk-'));
    for (const d of ['b', 'a/deep/deeper', '.hidden', 'vendor', 'elsewhere'])
      mkdirSync(join(root, d), { recursive: true });
    for (const f of ['z.txt', 'a.txt', 'b/1.go', 'a/2.go', 'a/deep/3.go', 'a/deep/deeper/4.go'])
      writeFileSync(join(root, f), '');
    writeFileSync(join(root, '.hidden/h.go'), '');
    writeFileSync(join(root, 'vendor/v.go'), '');
    writeFileSync(join(root, 'elsewhere/e.go'), '');
    symlinkSync(join(root, 'elsewhere'), join(root, 'link'));
    symlinkSync(join(root, 'missing'), join(root, 'broken'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('takes entries depth first in name order, entering only the directories allowed', () => {
    const got = walkFiles(root, (p) => p.endsWith('.go'), {
      enter: (name) => !name.startsWith('.') && name !== 'vendor',
    });
    assert.deepEqual(rel(got), [
      'a/2.go',
      'a/deep/3.go',
      'a/deep/deeper/4.go',
      'b/1.go',
      'elsewhere/e.go',
    ]);
  });

  it('goes no deeper than maxDepth and stops at the limit', () => {
    const go = (p: string) => p.endsWith('.go');
    assert.deepEqual(rel(walkFiles(join(root, 'a'), go, { maxDepth: 1 })), [
      'a/2.go',
      'a/deep/3.go',
    ]);
    assert.deepEqual(rel(walkFiles(join(root, 'a'), go, { limit: 2 })), ['a/2.go', 'a/deep/3.go']);
  });

  it('never enters a linked directory unless told to follow links', () => {
    const linked = (paths: string[]) => rel(paths).filter((p) => p.startsWith('link'));
    assert.deepEqual(linked(walkFiles(root, all)), ['link']);
    assert.deepEqual(linked(walkFiles(root, all, { followLinks: true })), ['link/e.go']);
  });

  it('passes over what it cannot read, or throws when strict', () => {
    assert.deepEqual(walkFiles(join(root, 'absent'), all), []);
    assert.throws(() => walkFiles(join(root, 'absent'), all, { strict: true }), /ENOENT/);
    assert.ok(rel(walkFiles(root, all, { followLinks: true })).includes('broken'));
    assert.throws(() => walkFiles(root, all, { followLinks: true, strict: true }), /ENOENT/);
  });
});
