/**
 * Server-side apply with times that do not parse: structured-merge-diff takes them as strings,
 * so kube-apiserver fails when it converts the merged object back to its Go type — a 500 with
 * reason Unknown and the field manager's wrapped message — on create and update alike, after
 * conflicts; valid times are stored as the other verbs store them, and nothing is stored on error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served } from './http';
import type { Served } from './http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const lease = (name: string, spec: Record<string, unknown>, md: Record<string, unknown> = {}) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default', ...md },
  spec,
});
const apply = (name: string, body: unknown, q = 'fieldManager=me') =>
  s.call('PATCH', `${LEASES}/${name}?${q}`, body, APPLY);
const BAD_MICRO =
  'parsing time "2026-12-01T01:02:03.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"';

describe('server-side apply with invalid times', () => {
  it('refuses an apply that would create the object, storing nothing', async () => {
    const r = await apply('fresh', lease('fresh', { renewTime: '2026-12-01T01:02:03.123Z' }));
    assert.equal(r.status, 500, r.body);
    assert.deepEqual(JSON.parse(r.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `failed to convert new object (default/fresh; coordination.k8s.io/v1, Kind=Lease) to proper version: unable to convert unstructured object to coordination.k8s.io/v1, Kind=Lease: ${BAD_MICRO}`,
      code: 500,
    });
    assert.equal((await s.get(`${LEASES}/fresh`)).status, 404);
  });

  it('refuses an apply to an existing object and leaves it as it was', async () => {
    const ok = await apply(
      'held',
      lease('held', { renewTime: '2026-12-01T03:02:03.500000+02:00' }),
    );
    assert.equal(ok.status, 201, ok.body);
    const stored = JSON.parse(ok.body) as {
      spec: { renewTime: string };
      metadata: { resourceVersion: string };
    };
    assert.equal(stored.spec.renewTime, '2026-12-01T01:02:03.500000Z');
    const r = await apply('held', lease('held', { acquireTime: 'soon' }));
    assert.equal(r.status, 500, r.body);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'failed to convert new object (default/held; coordination.k8s.io/v1, Kind=Lease) to proper version: unable to convert unstructured object to coordination.k8s.io/v1, Kind=Lease: parsing time "soon" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "soon" as "2006"',
    );
    const after = JSON.parse((await s.get(`${LEASES}/held`)).body) as typeof stored;
    assert.equal(after.metadata.resourceVersion, stored.metadata.resourceVersion);
  });

  it('checks metadata times too, and takes a null creationTimestamp as kubectl writes it', async () => {
    const bad = await apply('meta', lease('meta', {}, { creationTimestamp: 'yesterday' }));
    assert.equal(bad.status, 500, bad.body);
    assert.match(
      (JSON.parse(bad.body) as { message: string }).message,
      /Kind=Lease: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"$/,
    );
    const nul = await apply(
      'meta',
      lease('meta', { holderIdentity: 'x' }, { creationTimestamp: null }),
    );
    assert.equal(nul.status, 201, nul.body);
  });

  it('answers a conflict before the time error, as the merge comes first', async () => {
    const first = await apply('owned', lease('owned', { holderIdentity: 'a' }), 'fieldManager=one');
    assert.equal(first.status, 201, first.body);
    const r = await apply(
      'owned',
      lease('owned', { holderIdentity: 'b', renewTime: 'never' }),
      'fieldManager=two',
    );
    assert.equal(r.status, 409, r.body);
  });
});
