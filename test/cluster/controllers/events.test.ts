/** Building a core/v1 Event, as client-go's recorder makes one; the cluster's recorder uses it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCluster } from '../../../src/cluster/builtins';
import { newEvent } from '../../../src/cluster/controllers/events';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { VirtualClock } from '../../../src/util/clock';
import { EVENT } from '../helpers';

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', resourceVersion: '12' },
};

describe('newEvent', () => {
  it('names the event after the object and the time, and refers to the object', () => {
    const ev = newEvent(pod, 'Warning', 'FailedCreate', 'quota exceeded', 'replicaset-controller', {
      ms: 1_000,
      seq: 1_002,
      timestamp: '1970-01-01T00:00:01Z',
    });
    assert.deepEqual(ev, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `web-1.${(1_000_000 + 2).toString(16)}`, namespace: 'shop' },
      involvedObject: {
        kind: 'Pod',
        namespace: 'shop',
        name: 'web-1',
        uid: 'u-1',
        apiVersion: 'v1',
        resourceVersion: '12',
      },
      reason: 'FailedCreate',
      message: 'quota exceeded',
      source: { component: 'replicaset-controller' },
      firstTimestamp: '1970-01-01T00:00:01Z',
      lastTimestamp: '1970-01-01T00:00:01Z',
      count: 1,
      type: 'Warning',
      eventTime: null,
      reportingComponent: 'replicaset-controller',
      reportingInstance: '',
    });
  });

  it('puts the event of a cluster-scoped object in default, its reference without a namespace', () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    const ev = newEvent(node, 'Normal', 'Ready', 'ok', 'kubelet', { ms: 0, seq: 0, timestamp: '' });
    assert.equal(ev.metadata.namespace, 'default');
    assert.equal((ev.involvedObject as Record<string, unknown>).namespace, undefined);
  });
});

describe('the cluster recorder', () => {
  it('stores the event newEvent builds, and counts a repeat on the same object', () => {
    const cluster = createCluster({ controllers: false, clock: new VirtualClock(5_000) });
    try {
      const cm = cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'default' },
      });
      cluster.recordEvent(cm, 'Normal', 'Synced', 'done', 'tester');
      cluster.recordEvent(cm, 'Normal', 'Synced', 'done', 'tester');
      const events = cluster.list(EVENT, { namespace: 'default' }).items;
      assert.equal(events.length, 1);
      const [ev] = events;
      assert.equal(ev.metadata.name, `c.${(5_000_000).toString(16)}`);
      assert.equal(ev.count, 2);
      assert.equal(ev.reportingComponent, 'tester');
      assert.deepEqual(ev.involvedObject, {
        kind: 'ConfigMap',
        namespace: 'default',
        name: 'c',
        uid: cm.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: cm.metadata.resourceVersion,
      });
    } finally {
      cluster.close();
    }
  });
});
