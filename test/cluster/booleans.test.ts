/**
 * Boolean query parameters spelled as clients we did not write spell them: the Python client
 * sends `True`/`False`. kube-apiserver converts options through the parameter codec
 * (`Convert_Slice_string_To_bool`: only "0" and "false" in any case are false) and reads
 * `pretty` with Go's strconv.ParseBool.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CM } from './helpers';
import { meta, served } from './http';
import type { Served } from './http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const APPLY = { 'content-type': 'application/apply-patch+yaml' };

describe('booleans spelled True', () => {
  it('watch=True from a resourceVersion streams the changes after it, not a List', async () => {
    const made = s.cluster.create({ ...CM, metadata: { name: 'w', namespace: 'default' } });
    const events = await s.watch(
      `/api/v1/namespaces/default/configmaps?resourceVersion=${made.metadata.resourceVersion}&watch=True`,
      (evs) => evs.length > 0,
      () =>
        setTimeout(() =>
          s.cluster.create({ ...CM, metadata: { name: 'w2', namespace: 'default' } }),
        ),
    );
    assert.equal(events[0].type, 'ADDED');
    assert.equal(meta(events[0].object).name, 'w2');
  });

  it('orphanDependents=True orphans: the orphan finalizer holds the object', async () => {
    s.cluster.create({ ...CM, metadata: { name: 'o', namespace: 'default' } });
    const r = await s.call(
      'DELETE',
      '/api/v1/namespaces/default/configmaps/o?orphanDependents=True',
    );
    assert.equal(r.status, 200, r.body);
    const md = meta(JSON.parse(r.body) as Record<string, unknown>);
    assert.deepEqual(md.finalizers, ['orphan']);
    assert.ok(md.deletionTimestamp);
  });

  it('orphanDependents=False does not orphan', async () => {
    s.cluster.create({ ...CM, metadata: { name: 'o2', namespace: 'default' } });
    const r = await s.call(
      'DELETE',
      '/api/v1/namespaces/default/configmaps/o2?orphanDependents=False',
    );
    assert.equal(r.status, 200, r.body);
    assert.equal(s.cluster.peek(CM, { namespace: 'default', name: 'o2' }), undefined);
  });

  it('force=True on apply takes a field another manager owns', async () => {
    const path = '/api/v1/namespaces/default/configmaps/f';
    const doc = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  namespace: default\ndata:\n  k: "${v}"\n`;
    assert.equal((await s.call('PATCH', `${path}?fieldManager=a`, doc('1'), APPLY)).status, 201);
    const conflict = await s.call('PATCH', `${path}?fieldManager=b`, doc('2'), APPLY);
    assert.equal(conflict.status, 409, conflict.body);
    const forced = await s.call('PATCH', `${path}?fieldManager=b&force=True`, doc('2'), APPLY);
    assert.equal(forced.status, 200, forced.body);
    assert.deepEqual((JSON.parse(forced.body) as { data: unknown }).data, { k: '2' });
  });
});

describe('pretty', () => {
  const path = '/api/v1/namespaces/default/configmaps';
  const indented = (body: string) => body.startsWith('{\n');

  it('indents for pretty=True and pretty=1 (strconv.ParseBool)', async () => {
    assert.ok(indented((await s.get(`${path}?pretty=True`)).body));
    assert.ok(indented((await s.get(`${path}?pretty=1`)).body));
  });

  it('does not indent for spellings ParseBool refuses, or for pretty=false', async () => {
    assert.ok(!indented((await s.get(`${path}?pretty=yes`)).body));
    assert.ok(
      !indented((await s.get(`${path}?pretty=false`, { 'user-agent': 'curl/8.5.0' })).body),
    );
  });

  it('indents for curl without asking, as kube-apiserver does for human user agents', async () => {
    assert.ok(indented((await s.get(path, { 'user-agent': 'curl/8.5.0' })).body));
    assert.ok(!indented((await s.get(path, { 'user-agent': 'kubectl/v1.34.0' })).body));
  });
});
