import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanTempFiles, writeFileAtomic } from '../../../src/cluster/storage/atomicfile';

test('leftover temp files of interrupted writes are removed, and nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-atomic-'));
  try {
    const file = join(dir, 'state.json');
    for (const f of [
      '.state.json.4242.tmp',
      '.state.json.7.tmp',
      'state.json',
      '.state.json.x.tmp',
      'other.tmp',
    ])
      writeFileSync(join(dir, f), 'x');
    assert.deepEqual(cleanTempFiles(file).sort(), ['.state.json.4242.tmp', '.state.json.7.tmp']);
    assert.deepEqual(readdirSync(dir).sort(), ['.state.json.x.tmp', 'other.tmp', 'state.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an atomic write replaces the file whole, 0600, leaving no temp file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-atomic-'));
  try {
    const file = join(dir, 'secret');
    writeFileSync(file, 'old', { mode: 0o644 });
    writeFileAtomic(file, 'new');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['secret']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
