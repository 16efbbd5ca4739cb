import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { join } from 'node:path';
import { parseFaults } from '../../../src/cluster/faults';
import { simulate } from '../../../src/runtime/simulation';
import { describeNext, relativeTimes, toReconcileView } from '../../../src/vscode/model/traceview';

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

describe('traceview under faults', () => {
  it('marks the API call an injected fault failed with the fault name', async () => {
    const sample = join(__dirname, '..', '..', '..', 'samples/quota-operator');
    const r = await simulate({
      reconciler: join(sample, 'reconcilers/webapp.reconciler.ts'),
      manifests: [join(sample, 'config')],
      durationMs: 10_000,
      isolate: false,
      faults: parseFaults(
        'faults:\n  - {name: one-conflict, match: {verb: update, resource: deployments}, times: 1, error: {code: 409}}\n',
        'faults.yaml',
      ),
    });
    const trace = r.traces.find((t) => t.calls.some((c) => c.fault))!;
    const calls = toReconcileView(trace, null).calls;
    const faulted = calls.filter((c) => c.fault !== undefined);
    assert.deepEqual(
      faulted.map((c) => [c.verb, c.resource, c.code, c.fault]),
      [['update', 'deployments', 409, 'one-conflict']],
    );
    assert.ok(
      calls.some((c) => c.fault === undefined),
      'the other calls are not marked',
    );
  });
});
