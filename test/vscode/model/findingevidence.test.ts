import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../../src/runtime/findings';
import { describeEvidence } from '../../../src/vscode/model/findingevidence';

const ORIGIN = 1_796_032_756_207;

/** Raw epoch milliseconds or JSON in what a person reads. */
function assertReadable(lines: string[]): void {
  for (const l of lines) {
    assert.doesNotMatch(l, /\d{10,}/, `no epoch in "${l}"`);
    assert.doesNotMatch(l, /[{}[\]"]/, `no JSON in "${l}"`);
  }
}

describe('a finding’s evidence in words', () => {
  it('tells a hot loop by its count, paths, generations and time from the session start', () => {
    const lines = describeEvidence(
      {
        kind: 'hot-loop',
        evidence: {
          at: ORIGIN + 5214,
          reconciles: 19,
          reason: 'self-triggered',
          traceIds: [4, 5, 6],
          changedPaths: ['.spec.replicas', '.metadata.annotations'],
          generations: [2, 20],
          suspended: true,
        },
      },
      ORIGIN,
    );
    assert.deepEqual(lines, [
      '19 reconciles in a row, each triggered by its own write, detected at t+5.214s.',
      'Each pass wrote .spec.replicas, .metadata.annotations.',
      'The generation went from 2 to 20.',
      'Processing of the key was paused.',
    ]);
  });

  it('names the refused call, the quota numbers and when it was first seen', () => {
    const lines = describeEvidence(
      {
        kind: 'quota-conflict',
        evidence: {
          source: 'api-call',
          call: { verb: 'create', resource: 'pods', namespace: 'default', name: 'p', code: 403 },
          quota: 'compute',
          requested: 'pods=1',
          used: 'pods=3',
          limited: 'pods=3',
          count: 2,
          traceIds: [1, 2],
          firstAt: ORIGIN + 65_250,
        },
      },
      ORIGIN,
    );
    assert.deepEqual(lines, [
      'create of pods default/p was answered 403.',
      'ResourceQuota compute: requested pods=1, used pods=3, limited pods=3.',
      'Seen 2 times, first at t+1m05.250s.',
    ]);
    assertReadable(lines);
  });

  it('follows a quota Event up the owner chain in words', () => {
    const lines = describeEvidence(
      {
        kind: 'quota-conflict',
        evidence: {
          source: 'event',
          event: {
            type: 'Warning',
            reason: 'FailedCreate',
            message: 'exceeded quota: compute',
            involvedObject: { kind: 'ReplicaSet', namespace: 'default', name: 'shop-1' },
          },
          ownerChain: [
            { kind: 'ReplicaSet', namespace: 'default', name: 'shop-1' },
            { kind: 'Deployment', namespace: 'default', name: 'shop' },
            { kind: 'WebApp', namespace: 'default', name: 'shop' },
          ],
          quota: 'compute',
          count: 1,
        },
      },
      ORIGIN,
    );
    assert.deepEqual(lines, [
      'Event FailedCreate (Warning) on ReplicaSet default/shop-1: exceeded quota: compute',
      'Owner chain: ReplicaSet default/shop-1 ← Deployment default/shop ← WebApp default/shop.',
      'ResourceQuota compute.',
      'Counted 1 time.',
    ]);
  });

  it('gives a conflict storm its span as a length of time', () => {
    const lines = describeEvidence(
      {
        kind: 'conflict-storm',
        evidence: {
          conflicts: 4,
          reconciles: 6,
          firstAt: ORIGIN + 1000,
          lastAt: ORIGIN + 3500,
          objects: ['deployments/shop'],
          traceIds: [1],
        },
      },
      ORIGIN,
    );
    assert.deepEqual(lines, [
      '4 update conflicts (409) over 6 reconciles.',
      'From t+1.000s to t+3.500s (2.5s).',
      'On deployments/shop.',
    ]);
  });

  it('words evidence of any other kind field by field, times and lengths included', () => {
    const f: Pick<Finding, 'kind' | 'evidence'> = {
      kind: 'bottleneck',
      evidence: {
        reconciles: 12,
        workerBusyPercent: 42.5,
        queueWaitMsP99: 1500,
        firstAt: ORIGIN + 250,
        busiestKey: { key: 'default/shop', reconciles: 9 },
        traceIds: [1, 2, 3],
        lastError: null,
      },
    };
    const lines = describeEvidence(f, ORIGIN);
    assert.deepEqual(lines, [
      'Reconciles: 12',
      'Worker busy percent: 42.5%',
      'Queue wait p99: 1.5s',
      'First at: t+0.250s',
      'Busiest key: key default/shop, reconciles 9',
    ]);
    assertReadable(lines);
  });
});
