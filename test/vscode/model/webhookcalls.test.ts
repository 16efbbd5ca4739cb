/** A write's webhook calls as the API calls pane words them: verdicts, failures and what they did. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WebhookCallRecord } from '../../../src/cluster/admission/webhook/callrecord';
import { webhookCallView, webhookCallViews } from '../../../src/vscode/model/webhookcalls';

const record = (over: Partial<WebhookCallRecord>): WebhookCallRecord => ({
  kind: 'validating',
  webhook: 'v.example.com',
  configuration: 'checks',
  operation: 'CREATE',
  resource: 'configmaps',
  namespace: 'default',
  name: 'c1',
  start: 1000,
  ms: 12,
  ok: true,
  allowed: true,
  ...over,
});

test('an allowed call, and a mutating one that patched, say so with what they were asked', () => {
  assert.deepEqual(webhookCallView(record({})), {
    kind: 'validating',
    webhook: 'v.example.com',
    configuration: 'checks',
    asked: 'CREATE configmaps default/c1',
    verdict: 'allowed',
    refused: false,
    failed: false,
    latencyMs: 12,
  });
  const patched = webhookCallView(record({ kind: 'mutating', patched: true, name: undefined }));
  assert.equal(patched.verdict, 'allowed, patched');
  assert.equal(patched.asked, 'CREATE configmaps default');
});

test('a denial carries its code and the message the write was refused with', () => {
  const v = webhookCallView(
    record({
      allowed: false,
      code: 403,
      message: 'admission webhook "v.example.com" denied the request: no',
    }),
  );
  assert.deepEqual(
    [v.verdict, v.refused, v.failed, v.message],
    ['denied (403)', true, false, 'admission webhook "v.example.com" denied the request: no'],
  );
});

test('a failed call says whether it timed out and what its failurePolicy did to the write', () => {
  const timedOut = webhookCallView(
    record({
      ok: false,
      allowed: undefined,
      error: 'Post "…": context deadline exceeded',
      timedOut: true,
      failurePolicy: 'Fail',
      ms: 10_000,
    }),
  );
  assert.deepEqual(
    [timedOut.verdict, timedOut.refused, timedOut.failed, timedOut.message, timedOut.latencyMs],
    [
      'timed out — write refused (failurePolicy Fail)',
      true,
      true,
      'Post "…": context deadline exceeded',
      10_000,
    ],
  );
  const ignored = webhookCallView(
    record({ ok: false, allowed: undefined, error: 'connection refused', failurePolicy: 'Ignore' }),
  );
  assert.deepEqual(
    [ignored.verdict, ignored.refused, ignored.failed],
    ['call failed — ignored (failurePolicy Ignore)', false, true],
  );
});

test('a conversion call has no verdict: converted, or failed (and its request with it)', () => {
  const conv = { kind: 'conversion', webhook: 'widgets.example.com', start: 0, ms: 2, ok: true };
  assert.equal(webhookCallView(conv).verdict, 'converted');
  const failed = webhookCallView({ ...conv, ok: false, error: 'refused' });
  assert.deepEqual([failed.verdict, failed.refused], ['call failed', true]);
});

test('a call that made no webhook call gets no webhooks field', () => {
  assert.deepEqual(webhookCallViews(undefined), {});
  assert.deepEqual(webhookCallViews([]), {});
  assert.equal(webhookCallViews([record({})]).webhooks?.length, 1);
});
