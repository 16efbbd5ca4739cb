import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeNext, relativeTimes } from '../../../src/vscode/model/traceview';

describe('traceview', () => {
  it('says what the queue does next, with the exact delay', () => {
    assert.equal(
      describeNext({ action: 'forget' }),
      'forget the request (done until the next event)',
    );
    assert.equal(
      describeNext({ action: 'requeueAfter', delayMs: 30_000 }),
      'requeue after 30s (requeueAfter)',
    );
    assert.equal(
      describeNext({ action: 'rateLimited', delayMs: 20, reason: { kind: 'backoff', attempt: 3 } }),
      'rate-limited requeue in 20ms (backoff 3)',
    );
    assert.equal(describeNext({ action: 'none' }), 'drop the request (terminal error: no retry)');
  });

  it('shows absolute clock times in summaries relative to the session start', () => {
    assert.equal(
      relativeTimes('forget + addAfter 5000 ms (at t=1796032761207)', 1796032756207),
      'forget + addAfter 5000 ms (at t+5.000s)',
    );
    assert.equal(relativeTimes('at t=5000', 0), 'at t=5000');
  });
});
