import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../../../src/cluster/builtins';
import type { Cluster } from '../../../src/cluster/cluster';
import { StatusError } from '../../../src/cluster/apimachinery/errors';
import { persist, readStateFile, replay, walFileOf } from '../../../src/cluster/storage/state';
import { WalCorruptError, WriteAheadLog, readWal } from '../../../src/cluster/storage/wal';
import { CM } from '../helpers';

function cm(name: string, v = 'v') {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: v } };
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rs-wal-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a restart would load: the snapshot with the log replayed over it (no clean close). */
function restartFrom(file: string): Cluster {
  const snap = readStateFile(file);
  const state = replay(
    snap.kind === 'loaded' ? snap.state : undefined,
    readWal(walFileOf(file)).records,
  );
  return createCluster({ controllers: false, state });
}

test('a write is durable in the log once sync resolves, and replays after a crash', async () => {
  await withDir(async (dir) => {
    const file = join(dir, 'state.json');
    const a = createCluster({ controllers: false });
    const p = await persist(a, file);
    a.create(cm('a'));
    a.create(cm('b'));
    const b = a.get(CM, { namespace: 'default', name: 'b' });
    a.update({ ...b, data: { k: 'changed' } });
    a.delete(CM, { namespace: 'default', name: 'a' });
    await a.store.sync();
    // No close: the process "dies" here, and only the snapshot from start plus the log remain.
    const again = restartFrom(file);
    assert.equal(again.peek(CM, { namespace: 'default', name: 'a' }), undefined);
    assert.deepEqual(again.get(CM, { namespace: 'default', name: 'b' }).data, { k: 'changed' });
    assert.equal(again.store.resourceVersion, a.store.resourceVersion);
    again.close();
    await p.close();
    a.close();
  });
});

test('the state file and its log are written 0600: they hold Secrets', async () => {
  await withDir(async (dir) => {
    const file = join(dir, 'state.json');
    const a = createCluster({ controllers: false });
    const p = await persist(a, file);
    a.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { t: 'eA==' } });
    await a.store.sync();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(walFileOf(file)).mode & 0o777, 0o600);
    await p.close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    a.close();
  });
});

test('a torn last log record is discarded and reported; the records before it replay', async () => {
  await withDir(async (dir) => {
    const file = join(dir, 'state.json');
    const a = createCluster({ controllers: false });
    const p = await persist(a, file);
    a.create(cm('kept'));
    await a.store.sync();
    const whole = readFileSync(walFileOf(file)).length;
    const torn = '{"rv":999,"s":"/configmaps","k":"default/torn","o":{"apiV';
    appendFileSync(walFileOf(file), torn);
    const log = readWal(walFileOf(file));
    assert.deepEqual(log.torn, { offset: whole, bytes: torn.length });
    assert.deepEqual(
      log.records.map((r) => r.k),
      ['default/kept'],
    );
    await p.close();
    a.close();
  });
});

test('a damaged record before the end is an error naming the file and byte offset', async () => {
  await withDir(async (dir) => {
    const wal = join(dir, 'state.json.wal');
    const first = '{"rv":5,"s":"/configmaps","k":"default/a","o":{"metadata":{"name":"a"}}}\n';
    writeFileSync(
      wal,
      `${first}{"rv":6,"s":"/configmaps","k":"default/b","o":{"metad#ta"}}\n{"rv":7,"s":"/configmaps","k":"default/a"}\n`,
    );
    assert.throws(
      () => readWal(wal),
      (e: unknown) =>
        e instanceof WalCorruptError &&
        e.offset === first.length &&
        e.message.startsWith(`${wal}: corrupt write-ahead log record at byte ${first.length}:`),
    );
  });
});

test('records the snapshot already holds are skipped on replay', () => {
  const state = replay(
    {
      version: 1,
      resourceVersion: 10,
      objects: [
        {
          storageKey: '/configmaps',
          object: { ...cm('a', 'new'), metadata: { name: 'a', namespace: 'default' } },
        },
      ],
    },
    [
      { rv: 9, s: '/configmaps', k: 'default/a', o: cm('a', 'old') },
      { rv: 11, s: '/configmaps', k: 'default/b', o: cm('b') },
    ],
  );
  assert.equal(state.resourceVersion, 11);
  assert.deepEqual(
    state.objects.map((o) => o.object.data),
    [{ k: 'new' }, { k: 'v' }],
  );
});

test('the log is compacted into the snapshot as it grows, losing nothing', async () => {
  await withDir(async (dir) => {
    const file = join(dir, 'state.json');
    const a = createCluster({ controllers: false });
    const p = await persist(a, file, { compactBytes: 4096 });
    for (let i = 0; i < 200; i++) {
      a.create(cm(`c${i}`, 'x'.repeat(100)));
      if (i % 10 === 0) await a.store.sync();
    }
    await a.store.sync();
    // Compaction starts once the log outgrows the snapshot: what is left is at most a snapshot's
    // worth plus the batch that crossed it, far less than the ~80 KB written.
    const logSize = statSync(walFileOf(file)).size;
    const snapshotSize = statSync(file).size;
    assert.ok(snapshotSize > 20_000, `the snapshot holds the objects (${snapshotSize} bytes)`);
    assert.ok(
      logSize < snapshotSize + 8192,
      `the log was emptied into the snapshot (${logSize} bytes left, snapshot ${snapshotSize})`,
    );
    const again = restartFrom(file);
    assert.equal(again.store.count('/configmaps'), 200);
    again.close();
    await p.close();
    a.close();
  });
});

test('a log that cannot be written fails the waiting writes and refuses every later one with a 500', async () => {
  await withDir(async (dir) => {
    const a = createCluster({ controllers: false });
    const errors: string[] = [];
    const wal = await WriteAheadLog.open(join(dir, 'x.wal'), {
      serialize: (o) => a.jsonOf(o),
      compactBytes: 0,
      compact: () => Promise.reject(new Error('ENOSPC: no space left on device')),
      onFailure: (e) => errors.push(e.message),
    });
    a.store.setJournal(wal);
    a.create(cm('first'));
    await a.store.sync(); // the first batch is durable; compacting after it fails
    a.create(cm('second'));
    await assert.rejects(
      a.store.sync(),
      (e: unknown) => e instanceof StatusError && e.code === 500,
    );
    assert.throws(
      () => a.create(cm('third')),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 500 &&
        /x\.wal could not be written \(ENOSPC: no space left on device\)/.test(e.message),
    );
    assert.equal(a.peek(CM, { namespace: 'default', name: 'third' }), undefined);
    assert.equal(errors.length, 1);
    await assert.rejects(wal.close());
    a.close();
  });
});
