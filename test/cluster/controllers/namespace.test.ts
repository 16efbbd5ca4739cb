import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCluster } from '../../../src/cluster/builtins';
import { NAMESPACE_DELETION_GRACE_MS } from '../../../src/cluster/controllers/namespace';
import { VirtualClock } from '../../../src/util/clock';
import { CM, NS, flush } from '../helpers';

// kube-controller-manager's namespace controller takes a namespace event up 5 s after it comes
// (namespaceDeletionGracePeriod): a real kube-controller-manager's namespace is Terminating, with
// its contents, when read right after the DELETE (the differential's namespace/deletion-empties-it).
test('a deleted namespace stays Terminating for the grace period, then is emptied and goes', async () => {
  const clock = new VirtualClock(0);
  const cluster = createCluster({ clock });
  cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone' } });
  cluster.create({ ...CM, metadata: { name: 'a', namespace: 'gone' } });
  cluster.delete(NS, { name: 'gone' });
  await flush(clock);
  await clock.advance(NAMESPACE_DELETION_GRACE_MS - 1);
  await flush(clock);
  const ns = cluster.peek(NS, { name: 'gone' });
  assert.equal((ns?.status as { phase?: string }).phase, 'Terminating');
  assert.ok(cluster.peek(CM, { namespace: 'gone', name: 'a' }), 'its contents are still there');
  await clock.advance(1);
  await flush(clock);
  await clock.advance(1_000);
  await flush(clock);
  assert.equal(cluster.peek(CM, { namespace: 'gone', name: 'a' }), undefined);
  assert.equal(cluster.peek(NS, { name: 'gone' }), undefined);
  cluster.close();
});
