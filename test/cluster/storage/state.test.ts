import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../../../src/cluster/builtins';
import { readStateFile, writeStateFile } from '../../../src/cluster/storage/state';
import { CM, WIDGET, widget, widgetCrd } from '../helpers';

test('a saved state restores objects, CRDs and the resourceVersion counter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-state-'));
  try {
    const a = createCluster({ controllers: false });
    a.create(widgetCrd());
    a.create(widget('w1', 4));
    a.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } });
    const file = join(dir, 'state.json');
    writeStateFile(file, a.exportState());
    const rv = a.store.resourceVersion;
    a.close();
    const r = readStateFile(file);
    assert.equal(r.kind, 'loaded');
    const b = createCluster({
      controllers: false,
      state: r.kind === 'loaded' ? r.state : undefined,
    });
    assert.equal(
      (b.get(WIDGET, { namespace: 'default', name: 'w1' }).spec as { size: number }).size,
      4,
    );
    assert.deepEqual(b.get(CM, { namespace: 'default', name: 'c' }).data, { k: 'v' });
    const next = b.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' } });
    assert.ok(Number(next.metadata.resourceVersion) > rv);
    b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a corrupt state file is moved aside and reported, never silently dropped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-state-'));
  try {
    const file = join(dir, 'state.json');
    writeFileSync(file, '{"version": 1, "objects": [tru');
    const r = readStateFile(file);
    assert.equal(r.kind, 'corrupt');
    assert.ok(!existsSync(file));
    assert.ok(readdirSync(dir).some((f) => f.startsWith('state.json.corrupt-')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
