import { test } from 'node:test';
import assert from 'node:assert/strict';
import { flush, newCluster } from '../helpers';

const FS = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema' };
const PL = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration' };

test('the release’s priority-and-fairness configuration is there from the start, as the config producer makes it', async () => {
  const { cluster, clock } = newCluster({ controllerManager: false });
  const schemas = cluster.list(FS).items.map((o) => o.metadata.name);
  const levels = cluster.list(PL).items.map((o) => o.metadata.name);
  for (const n of ['exempt', 'catch-all', 'global-default', 'system-leader-election'])
    assert.ok(schemas.includes(n), `FlowSchema ${n}`);
  for (const n of ['exempt', 'catch-all', 'global-default', 'workload-low'])
    assert.ok(levels.includes(n), `PriorityLevelConfiguration ${n}`);
  await flush(clock);
  const global = cluster.get(FS, { name: 'global-default' });
  assert.equal(global.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
  assert.deepEqual(
    global.metadata.managedFields?.map((m) => [m.manager, m.operation, m.subresource]),
    [
      ['api-priority-and-fairness-config-consumer-v1', 'Apply', 'status'],
      ['api-priority-and-fairness-config-producer-v1', 'Update', undefined],
    ],
  );
  cluster.close();
});

test('a FlowSchema’s Dangling condition says whether its priority level exists, and follows it', async () => {
  const { cluster, clock } = newCluster({ controllerManager: false });
  cluster.create({
    ...FS,
    metadata: { name: 'mine' },
    spec: { priorityLevelConfiguration: { name: 'later' }, matchingPrecedence: 9000 },
  });
  await flush(clock);
  const dangling = () =>
    (cluster.get(FS, { name: 'mine' }).status as { conditions: Record<string, unknown>[] })
      .conditions[0];
  assert.equal(dangling().status, 'True');
  assert.equal(dangling().reason, 'NotFound');
  assert.equal(
    dangling().message,
    'This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object',
  );
  cluster.create({
    ...PL,
    metadata: { name: 'later' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5 } },
  });
  await flush(clock);
  assert.equal(dangling().status, 'False');
  assert.equal(dangling().reason, 'Found');
  cluster.close();
});
