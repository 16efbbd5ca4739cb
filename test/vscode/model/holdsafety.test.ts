import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  holdLines,
  holdWarnings,
  noteManagerLine,
  type ManagerExposure,
} from '../../../src/vscode/model/holdsafety';

test('a manager that says nothing of a lease or a webhook server puts nothing at risk when held', () => {
  const exposure: ManagerExposure = {};
  noteManagerLine(
    '{"level":"info","ts":"2026-12-03T10:00:00Z","msg":"Starting Controller","controller":"webapp"}',
    exposure,
  );
  assert.deepEqual(holdWarnings(exposure), []);
});

test("client-go's lease acquisition, as klog text or zap JSON, warns of the renew deadline", () => {
  for (const line of [
    'I1203 10:00:00.000000   4242 leaderelection.go:272] "Successfully acquired lease" lock="shop-system/abc.example.com"',
    '{"level":"info","ts":"2026-12-03T10:00:00Z","msg":"Successfully acquired lease","lock":"shop-system/abc.example.com"}',
  ]) {
    const exposure: ManagerExposure = {};
    noteManagerLine(
      'I1203 10:00:00.000000   4242 leaderelection.go:258] "Attempting to acquire leader lease..." lock="shop-system/abc.example.com"',
      exposure,
    );
    assert.equal(exposure.lease, undefined, 'not before it is acquired');
    noteManagerLine(line, exposure);
    const [w] = holdWarnings(exposure);
    assert.equal(w.kind, 'lease');
    assert.equal(w.firesAfterMs, 10_000);
    assert.match(w.message, /Lease shop-system\/abc\.example\.com/);
  }
});

test("controller-runtime's webhook server warns of kube-apiserver's webhook timeout, naming its port", () => {
  const exposure: ManagerExposure = {};
  noteManagerLine(
    '{"level":"info","ts":"2026-12-03T10:00:00Z","logger":"controller-runtime.webhook","msg":"Serving webhook server","host":"","port":9443}',
    exposure,
  );
  const [w] = holdWarnings(exposure);
  assert.equal(w.kind, 'webhook');
  assert.equal(w.firesAfterMs, 10_000);
  assert.match(w.message, /on port 9443/);
  assert.match(w.message, /failurePolicy/);
});

test('the panel counts the time held and down to each warning, then says it has happened', () => {
  const hold = {
    since: 1_000_000,
    cluster: 'kind-dev',
    warnings: holdWarnings({ webhookPort: 9443 }),
  };
  const early = holdLines(hold, 1_000_000 + 3_400);
  assert.equal(early.held, 'Held for 0:03 on kind-dev, whose clock does not stop.');
  assert.equal(early.warnings[0].fired, false);
  assert.match(early.warnings[0].text, /^In 7 s\. The manager serves admission webhooks/);
  const late = holdLines(hold, 1_000_000 + 83_000);
  assert.equal(late.held, 'Held for 1:23 on kind-dev, whose clock does not stop.');
  assert.equal(late.warnings[0].fired, true);
  assert.match(late.warnings[0].text, /^Held past 10 s: this has happened\./);
});
