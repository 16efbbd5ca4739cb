import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeWaitReason } from '../../../src/vscode/model/waitreason';

describe('describeWaitReason', () => {
  it('names the backoff attempt, and says backoff alone when the attempt is unknown', () => {
    assert.equal(describeWaitReason({ kind: 'backoff', attempt: 3 }), 'backoff 3');
    assert.equal(describeWaitReason({ kind: 'backoff' }), 'backoff');
  });

  it('words requeueAfter, the token bucket and a plain delay', () => {
    assert.equal(describeWaitReason({ kind: 'requeueAfter' }), 'requeueAfter');
    assert.equal(describeWaitReason({ kind: 'rate-limit' }), 'rate limit');
    assert.equal(describeWaitReason({ kind: 'delay' }), 'delayed');
  });
});
