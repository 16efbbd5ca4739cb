/**
 * PUT namespaces/NAME/finalize on envtest's control plane (no namespace controller): what
 * controller-runtime's own suites do to get rid of the namespaces they delete.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served, type Served } from '../http';

describe('namespaces/finalize', () => {
  let s: Served;
  before(async () => {
    s = await served({}, { controllers: false, controllerManager: false });
  });
  after(() => s.close());

  async function terminating(name: string): Promise<Record<string, unknown>> {
    assert.equal((await s.call('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
    assert.equal((await s.call('DELETE', `/api/v1/namespaces/${name}`)).status, 200);
    const got = await s.get(`/api/v1/namespaces/${name}`);
    assert.equal(got.status, 200, 'with no namespace controller it stays');
    const ns = JSON.parse(got.body) as Record<string, unknown>;
    assert.equal((ns.status as { phase: string }).phase, 'Terminating');
    const md = ns.metadata as Record<string, unknown>;
    assert.ok(md.deletionTimestamp);
    // The namespace REST's Delete sets no grace period, unlike the generic store's.
    assert.equal(md.deletionGracePeriodSeconds, undefined);
    return ns;
  }

  it('deletes a terminating namespace whose last finalizer is removed, answering its last state', async () => {
    const ns = await terminating('fin-a');
    const res = await s.call('PUT', '/api/v1/namespaces/fin-a/finalize', {
      ...ns,
      spec: { finalizers: [] },
    });
    assert.equal(res.status, 200);
    const out = JSON.parse(res.body) as {
      metadata: { name: string };
      spec: { finalizers?: string[] };
    };
    assert.equal(out.metadata.name, 'fin-a');
    assert.equal(out.spec.finalizers, undefined);
    assert.equal((await s.get('/api/v1/namespaces/fin-a')).status, 404);
  });

  it('answers 409 for a stale resourceVersion, as the update it is', async () => {
    const ns = await terminating('fin-b');
    const md = ns.metadata as Record<string, unknown>;
    const stale = { ...ns, metadata: { ...md, resourceVersion: '1' }, spec: { finalizers: [] } };
    const res = await s.call('PUT', '/api/v1/namespaces/fin-b/finalize', stale);
    assert.equal(res.status, 409);
    assert.match(JSON.parse(res.body).message, /the object has been modified/);
  });

  it('404s for a namespace that does not exist', async () => {
    const res = await s.call('PUT', '/api/v1/namespaces/nope/finalize', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'nope' },
    });
    assert.equal(res.status, 404);
  });
});
