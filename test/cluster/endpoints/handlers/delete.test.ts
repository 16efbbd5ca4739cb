/**
 * DELETE through the served cluster: what the Job REST warns of before it deletes (the
 * differential suite's batch/jobs delete scenarios, kube-apiserver 1.36.3's answers).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served, type Served } from '../../http';

const WARNING =
  '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';

describe('served cluster: deleting Jobs', () => {
  let s: Served;
  before(async () => {
    s = await served({}, { controllers: false });
  });
  after(() => s.close());

  const job = (name: string) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      suspend: true,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } },
    },
  });
  const jobs = '/apis/batch/v1/namespaces/default/jobs';

  it('warns that a Job deleted without a propagation policy orphans its pods, even when the delete fails', async () => {
    assert.equal((await s.call('POST', jobs, job('a'))).status, 201);
    const deleted = await s.call('DELETE', `${jobs}/a`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.headers.warning, WARNING);
    const missing = await s.call('DELETE', `${jobs}/a`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.warning, WARNING);
    assert.equal((await s.call('DELETE', jobs)).headers.warning, WARNING);
  });

  it('says nothing when the policy is chosen, or for another kind', async () => {
    assert.equal((await s.call('POST', jobs, job('b'))).status, 201);
    const r = await s.call('DELETE', `${jobs}/b?propagationPolicy=Background`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.warning, undefined);
    const cm = await s.call('DELETE', '/api/v1/namespaces/default/configmaps/none');
    assert.equal(cm.headers.warning, undefined);
  });
});
