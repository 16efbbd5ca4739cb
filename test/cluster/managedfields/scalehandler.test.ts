import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEPLOY, deployment, newCluster } from '../helpers';

const SCALE = (replicas: number, apiVersion = 'autoscaling/v1') => ({
  apiVersion,
  kind: 'Scale',
  metadata: { name: 'web', namespace: 'default' },
  spec: { replicas },
});
const KEY = { namespace: 'default', name: 'web' };

function created() {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(deployment('web', 1), { fieldManager: 'kubectl-create' });
  return cluster;
}

test('apply to /scale conflicts with the owner of the replicas, named in the Scale’s version', () => {
  const cluster = created();
  assert.throws(
    () =>
      cluster.patch(DEPLOY, KEY, SCALE(3), 'apply', {
        fieldManager: 'scaler',
        subresource: 'scale',
      }),
    {
      code: 409,
      message:
        'Apply failed with 1 conflict: conflict with "kubectl-create" using autoscaling/v1: .spec.replicas',
    },
  );
});

test('a forced apply to /scale sets the replicas and moves their ownership to the applier', () => {
  const cluster = created();
  const scale = cluster.patch(DEPLOY, KEY, SCALE(3), 'apply', {
    fieldManager: 'scaler',
    subresource: 'scale',
    force: true,
  });
  assert.equal(scale.kind, 'Scale');
  assert.deepEqual(scale.spec, { replicas: 3 });
  const d = cluster.get(DEPLOY, KEY);
  assert.equal((d.spec as { replicas: number }).replicas, 3);
  const managed = d.metadata.managedFields ?? [];
  const scaler = managed.find((e) => e.manager === 'scaler');
  assert.deepEqual(scaler, {
    manager: 'scaler',
    operation: 'Apply',
    apiVersion: 'apps/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    subresource: 'scale',
  });
  const creator = managed.find((e) => e.manager === 'kubectl-create');
  const spec = (creator?.fieldsV1 as Record<string, Record<string, unknown>>)['f:spec'];
  assert.ok(spec && !('f:replicas' in spec), 'the creator no longer owns the replicas');
  assert.ok('f:template' in spec, 'and keeps the rest');
});

test('apply to /scale takes only autoscaling/v1 Scale, as the apiserver', () => {
  const cluster = created();
  assert.throws(
    () =>
      cluster.patch(DEPLOY, KEY, SCALE(3, 'apps/v1'), 'apply', {
        fieldManager: 'scaler',
        subresource: 'scale',
      }),
    { code: 400, message: 'invalid object type: apps/v1, Kind=Scale' },
  );
});

// ScaleHandler.ToParent gives a /scale writer new to the parent an entry without a time, keeps
// it as it was on the next write, and the entries are encoded sorted (no time sorts first).
test('an update through /scale takes the replicas in an entry without a time, listed first', () => {
  const cluster = created();
  for (const replicas of [3, 4])
    cluster.patch(DEPLOY, KEY, { spec: { replicas } }, 'merge', {
      fieldManager: 'scaler',
      subresource: 'scale',
    });
  const managed = cluster.get(DEPLOY, KEY).metadata.managedFields ?? [];
  assert.deepEqual(managed[0], {
    manager: 'scaler',
    operation: 'Update',
    apiVersion: 'apps/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    subresource: 'scale',
  });
  assert.equal(managed[1].manager, 'kubectl-create');
});
