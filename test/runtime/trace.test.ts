import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  diffObjects,
  IGNORED_PATHS_AND_STATUS,
  IgnoredPaths,
  phaseDiff,
  sameChanges,
  type DiffEntry,
} from '../../src/runtime/trace';

test('diffObjects prefixes every path with where the values sit', () => {
  assert.deepEqual(
    diffObjects(undefined, { phase: 'Running', replicas: 2 }, undefined, '.status'),
    [
      { path: '.status.phase', op: 'add', after: 'Running' },
      { path: '.status.replicas', op: 'add', after: 2 },
    ],
  );
  assert.deepEqual(diffObjects({ phase: 'Pending' }, { phase: 'Running' }, undefined, '.status'), [
    { path: '.status.phase', op: 'replace', before: 'Pending', after: 'Running' },
  ]);
  assert.deepEqual(diffObjects(undefined, undefined, undefined, '.status'), []);
});

test('sameChanges keeps the intended list when the server made just those scalar changes', () => {
  const intended: DiffEntry[] = [{ path: '.status.phase', op: 'add', after: 'Running' }];
  const actual: DiffEntry[] = [{ path: '.status.phase', op: 'add', after: 'Running' }];
  assert.equal(sameChanges(intended, actual), intended);
});

test('sameChanges keeps what the server did when it differs from the intent', () => {
  const intended: DiffEntry[] = [{ path: '.status.phase', op: 'add', after: 'Running' }];
  for (const actual of [
    [{ path: '.status.phase', op: 'add', after: 'Failed' }],
    [{ path: '.status.ready', op: 'add', after: 'Running' }],
    [
      { path: '.status.phase', op: 'add', after: 'Running' },
      { path: '.metadata.labels.x', op: 'add', after: 'y' },
    ],
  ] as DiffEntry[][]) {
    assert.equal(sameChanges(intended, actual), actual);
  }
});

test("sameChanges never shares object values: the intended side holds the caller's objects", () => {
  const conditions = [{ type: 'Ready', status: 'True' }];
  const intended: DiffEntry[] = [{ path: '.status.conditions', op: 'add', after: conditions }];
  const actual: DiffEntry[] = [{ path: '.status.conditions', op: 'add', after: conditions }];
  assert.equal(sameChanges(intended, actual), actual);
});

test('diffObjects skips the server-owned metadata only at its place, and any member name is diffed', () => {
  const before = {
    metadata: { uid: 'u1', resourceVersion: '1', labels: { uid: 'x' } },
    spec: { uid: 'a', constructor: 1, __proto__x: 1 },
  };
  const after = {
    metadata: { uid: 'u2', resourceVersion: '2', labels: { uid: 'y' } },
    spec: { uid: 'b', constructor: 2, __proto__x: 2 },
  };
  assert.deepEqual(
    diffObjects(before, after).map((d) => d.path),
    ['.metadata.labels.uid', '.spec.uid', '.spec.constructor', '.spec.__proto__x'],
  );
});

test('IGNORED_PATHS_AND_STATUS skips the whole status, at any depth below it', () => {
  const before = { spec: { a: 1 }, status: { phase: 'Pending', conditions: [{ type: 'Ready' }] } };
  const after = { spec: { a: 2 }, status: { phase: 'Running', conditions: [] } };
  assert.deepEqual(
    diffObjects(before, after, IGNORED_PATHS_AND_STATUS).map((d) => d.path),
    ['.spec.a'],
  );
  assert.deepEqual(new IgnoredPaths(['.status']).at('.status'), true);
  assert.equal(new IgnoredPaths(['.status']).at('.spec'), undefined);
});

test('IgnoredPaths: a path under one already skipped whole adds nothing elsewhere', () => {
  const ignored = new IgnoredPaths(['.status', '.status.phase', '.metadata.uid']);
  assert.equal(ignored.at('.status'), true);
  assert.equal(ignored.at('.phase'), undefined, 'not skipped at the root');
  assert.deepEqual(
    diffObjects({ phase: 'a', status: { x: 1 } }, { phase: 'b', status: { x: 2 } }, ignored).map(
      (d) => d.path,
    ),
    ['.phase'],
  );
});

test('IgnoredPaths answers the same for a path asked again, and past the paths it remembers', () => {
  const ignored = new IgnoredPaths(['.metadata.uid', '.status']);
  for (let round = 0; round < 2; round++) {
    assert.equal(ignored.at('.status'), true);
    assert.equal(ignored.at('.metadata.uid'), true);
    assert.deepEqual(Object.keys(ignored.at('.metadata') as object), ['uid']);
    assert.equal(ignored.at('.spec'), undefined);
    // More distinct paths than it keeps: each is still walked to the right node.
    for (let i = 0; i < 100; i++) assert.equal(ignored.at(`.status.c${i}`), true);
    for (let i = 0; i < 100; i++) assert.equal(ignored.at(`.spec.c${i}`), undefined);
  }
  // A diff that starts at .metadata skips its uid there, from the remembered node.
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(
      diffObjects({ uid: 'a', name: 'x' }, { uid: 'b', name: 'y' }, ignored, '.metadata').map(
        (d) => d.path,
      ),
      ['.metadata.name'],
    );
  }
});

test('a status phase changed the status alone; a write phase, everything but the server’s bookkeeping', () => {
  const before = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', resourceVersion: '1', labels: { app: 'x' } },
    status: { phase: 'Pending' },
  };
  const after = {
    ...before,
    metadata: { name: 'a', resourceVersion: '2', labels: { app: 'y' } },
    status: { phase: 'Running' },
  };
  const status = phaseDiff({ phase: 'status', at: 0, before, after });
  assert.deepEqual(status, [
    { path: '.status.phase', op: 'replace', before: 'Pending', after: 'Running' },
  ]);
  const write = phaseDiff({ phase: 'write', at: 0, before, after });
  assert.deepEqual(
    write?.map((e) => e.path),
    ['.metadata.labels.app', '.status.phase'],
  );
  // A status written where there was none, and one removed.
  const bare = { ...before, status: undefined };
  assert.deepEqual(
    phaseDiff({ phase: 'status', at: 0, before: bare, after })?.map((e) => [e.path, e.op]),
    [['.status.phase', 'add']],
  );
  assert.deepEqual(
    phaseDiff({ phase: 'status', at: 0, before, after: bare })?.map((e) => [e.path, e.op]),
    [['.status.phase', 'remove']],
  );
});
