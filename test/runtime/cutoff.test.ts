import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CUT_OFF_WARNING, cutOff, markCutOff } from '../../src/runtime/cutoff';
import type { ReconcileTrace } from '../../src/runtime/trace';
import { blogReconcile } from './helpers';

const trace = (end: number | undefined, error?: string): ReconcileTrace =>
  blogReconcile({
    ...(end !== undefined ? { end } : {}),
    ...(error ? { error: { message: error } } : {}),
  });

test('a reconcile that erred once the stop began is cut off; one that erred before is not', () => {
  const before = trace(900, 'Internal error occurred: injected fault');
  const after = trace(1000, 'Get "https://127.0.0.1/apis": connection refused');
  const ok = trace(1200);
  markCutOff([before, after, ok], 1000);
  assert.deepEqual([cutOff(before), cutOff(after), cutOff(ok)], [false, true, false]);
  assert.deepEqual(after.warnings, [CUT_OFF_WARNING], 'the debugger shows why');
  markCutOff([after], 1000);
  assert.equal(after.warnings.length, 1, 'marked once');
});

test('context canceled is the stop whatever its time: only the stopping manager cancels it', () => {
  const t = trace(10, 'client rate limiter Wait returned an error: context canceled');
  assert.equal(cutOff(t), true);
  markCutOff([t], 1000);
  assert.deepEqual(t.warnings, [CUT_OFF_WARNING], 'marked for the debugger too');
  assert.equal(cutOff(trace(10, 'context deadline exceeded')), false);
});
