/** What a client write is meant to change, computed before it is sent. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { applyMergePatch, detachValues, intendedDiff } from '../../src/runtime/intendeddiff';

function cm(data: Record<string, string>, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', resourceVersion: '7' },
    data,
    ...(status ? { status } : {}),
  };
}

describe('intendedDiff', () => {
  it('a create adds the whole object but its status', () => {
    const obj = cm({ a: '1' }, { ready: true });
    const d = intendedDiff({ verb: 'create', subresource: '', before: undefined, obj });
    const { status: _status, ...spec } = obj;
    assert.deepEqual(d, [{ path: '.', op: 'add', after: spec }]);
  });

  it('an update shows the spec change and not a status the caller also changed', () => {
    const d = intendedDiff({
      verb: 'update',
      subresource: '',
      before: cm({ a: '1' }, { ready: false }),
      obj: cm({ a: '2' }, { ready: true }),
    });
    assert.deepEqual(d, [{ path: '.data.a', op: 'replace', before: '1', after: '2' }]);
  });

  it('a status update shows only the status', () => {
    const d = intendedDiff({
      verb: 'update',
      subresource: 'status',
      before: cm({ a: '1' }, { ready: false }),
      obj: cm({ a: '2' }, { ready: true }),
    });
    assert.deepEqual(d, [{ path: '.status.ready', op: 'replace', before: false, after: true }]);
  });

  it('a merge patch is applied to the server object: null removes a key', () => {
    const before = cm({ a: '1', b: '2' });
    const d = intendedDiff({
      verb: 'patch',
      subresource: '',
      before,
      obj: before,
      patch: { data: { a: null, c: '3' } },
      patchType: 'merge',
    });
    assert.deepEqual(d.map((e) => [e.path, e.op]).sort(), [
      ['.data.a', 'remove'],
      ['.data.c', 'add'],
    ]);
  });

  it('strategic and apply patches are previewed as merge patches', () => {
    const before = cm({ a: '1' });
    for (const patchType of ['strategic', 'apply'] as const) {
      const d = intendedDiff({
        verb: 'patch',
        subresource: '',
        before,
        obj: before,
        patch: { data: { a: '9' } },
        patchType,
      });
      assert.deepEqual(d, [{ path: '.data.a', op: 'replace', before: '1', after: '9' }], patchType);
    }
  });

  it('a status patch shows only what it does to the status', () => {
    const before = cm({ a: '1' }, { phase: 'Pending' });
    const d = intendedDiff({
      verb: 'patch',
      subresource: 'status',
      before,
      obj: before,
      patch: { data: { a: '2' }, status: { phase: 'Running' } },
    });
    assert.deepEqual(d, [
      { path: '.status.phase', op: 'replace', before: 'Pending', after: 'Running' },
    ]);
  });

  it('a JSON patch is shown as its own operations', () => {
    const before = cm({ a: '1' });
    const d = intendedDiff({
      verb: 'patch',
      subresource: '',
      before,
      obj: before,
      patch: [
        { op: 'add', path: '/data/b', value: '2' },
        { op: 'remove', path: '/data/a' },
        { op: 'test', path: '/data/a', value: '1' },
      ],
      patchType: 'json',
    });
    assert.deepEqual(d, [
      { path: '/data/b', op: 'add', after: '2' },
      { path: '/data/a', op: 'remove', after: undefined },
      { path: '/data/a', op: 'replace', after: '1' },
    ]);
  });

  it('a delete removes the whole object when it exists, nothing when it does not', () => {
    const obj = cm({});
    assert.deepEqual(intendedDiff({ verb: 'delete', subresource: '', before: obj, obj }), [
      { path: '.', op: 'remove', before: undefined },
    ]);
    assert.deepEqual(intendedDiff({ verb: 'delete', subresource: '', before: undefined, obj }), []);
  });

  it('leaves its inputs as they were', () => {
    const before = cm({ a: '1' }, { ready: false });
    const obj = cm({ a: '2' });
    const patch = { data: { a: null } };
    const copies = JSON.stringify([before, obj, patch]);
    intendedDiff({ verb: 'update', subresource: '', before, obj });
    intendedDiff({ verb: 'patch', subresource: '', before, obj, patch });
    assert.equal(JSON.stringify([before, obj, patch]), copies);
  });
});

describe('applyMergePatch (RFC 7386)', () => {
  it('merges objects, replaces arrays and scalars, removes nulls', () => {
    assert.deepEqual(
      applyMergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { c: null, d: 3 }, l: [3] }),
      {
        a: { b: 1, d: 3 },
        l: [3],
      },
    );
    assert.equal(applyMergePatch({ a: 1 }, 'x'), 'x');
    assert.deepEqual(applyMergePatch('x', { a: 1 }), { a: 1 });
  });
});

describe('detachValues', () => {
  it("copies the caller's object values, in place, and leaves scalars as they are", () => {
    const finalizers = ['a'];
    const patch = [
      { op: 'replace', path: '/metadata/finalizers', value: finalizers },
      { op: 'replace', path: '/spec/replicas', value: 3 },
    ];
    const d = intendedDiff({
      verb: 'patch',
      subresource: '',
      before: cm({}),
      obj: cm({}),
      patch,
      patchType: 'json',
    });
    assert.equal(d[0].after, finalizers);
    detachValues(d);
    finalizers.push('b');
    assert.deepEqual(d[0].after, ['a']);
    assert.equal(d[1].after, 3);
  });
});
