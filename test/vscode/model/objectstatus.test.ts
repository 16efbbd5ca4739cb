import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { objectStatus, statusTooltip } from '../../../src/vscode/model/objectstatus';

const obj = (status: unknown, generation = 1, spec: unknown = {}): KubeObject => ({
  apiVersion: 'apps.example.com/v1',
  kind: 'WebApp',
  metadata: { name: 'shop', namespace: 'default', generation },
  spec,
  status,
});

describe('objectStatus', () => {
  it('reports the phase and marks QuotaExceeded as an error', () => {
    const st = objectStatus(obj({ phase: 'QuotaExceeded', observedGeneration: 1 }));
    assert.equal(st.summary, 'QuotaExceeded');
    assert.equal(st.health, 'error');
    assert.equal(st.stale, false);
  });

  it('a good phase with too few ready replicas is progressing, not done (the icon follows readiness)', () => {
    const short = objectStatus(obj({ phase: 'Running', readyReplicas: 0 }, 1, { replicas: 3 }));
    assert.equal(short.summary, 'Running · 0/3 ready');
    assert.equal(short.health, 'progressing');
    const all = objectStatus(obj({ phase: 'Running', readyReplicas: 3 }, 1, { replicas: 3 }));
    assert.equal(all.health, 'ok');
    const notReady = objectStatus(
      obj({ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] }),
    );
    assert.equal(notReady.health, 'progressing');
  });

  it('says the status is stale when observedGeneration is behind generation', () => {
    const st = objectStatus(obj({ phase: 'Running', observedGeneration: 1 }, 2));
    assert.equal(st.stale, true);
    assert.match(
      statusTooltip(obj({ phase: 'Running', observedGeneration: 1 }, 2), st),
      /status stale/,
    );
  });

  it('falls back to the Ready condition', () => {
    const st = objectStatus(
      obj({ conditions: [{ type: 'Ready', status: 'False', reason: 'ImagePullBackOff' }] }),
    );
    assert.equal(st.summary, 'ImagePullBackOff');
    assert.equal(st.health, 'error');
  });

  it('warns about a Deployment whose ReplicaSet cannot create pods', () => {
    const st = objectStatus(
      obj(
        {
          readyReplicas: 1,
          conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' }],
        },
        1,
        { replicas: 3 },
      ),
    );
    assert.equal(st.summary, '1/3 ready');
    assert.equal(st.health, 'warning');
  });

  it('says so when an object has no status yet', () => {
    assert.equal(objectStatus(obj(undefined)).summary, 'no status yet');
  });
});
