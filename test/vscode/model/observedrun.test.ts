/**
 * The Reconcile Debugger on a Go operator Run Go Operator runs: it follows the newest finished
 * reconcile until one is picked, shows each write's webhook calls under it, and holds nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WebhookCallRecord } from '../../../src/cluster/admission/webhook/callrecord';
import type { ApiCall, ReconcileTrace } from '../../../src/runtime/trace';
import { ObservedRunModel, type ObservedRun } from '../../../src/vscode/model/observedrun';

const denial: WebhookCallRecord = {
  kind: 'validating',
  webhook: 'vreply.example.com',
  configuration: 'replies',
  operation: 'CREATE',
  resource: 'configmaps',
  namespace: 'default',
  name: 'rude-reply',
  start: 1_010,
  ms: 4,
  ok: true,
  allowed: false,
  code: 403,
  message: 'admission webhook "vreply.example.com" denied the request: no',
};

const create = (name: string, code: number, webhooks?: WebhookCallRecord[]): ApiCall => ({
  verb: 'create',
  resource: 'configmaps',
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'default',
  name,
  subresource: '',
  code,
  source: 'server',
  at: 1_005,
  wallMs: 9,
  ...(webhooks ? { webhooks } : {}),
});

let id = 0;
const trace = (key: string, end: number, calls: ApiCall[]): ReconcileTrace => ({
  id: ++id,
  reconcileID: `uid-${id}`,
  controller: 'greeting',
  request: { namespace: 'default', name: key },
  key: `default/${key}`,
  worker: 0,
  triggers: [],
  start: end - 20,
  end,
  phases: [],
  calls,
  warnings: [],
});

function run(traces: ReconcileTrace[]): ObservedRun & { on: boolean } {
  return {
    on: true,
    traces: () => traces,
    findings: () => [],
    running() {
      return this.on;
    },
  };
}

test("shows the newest reconcile with its write's webhook calls under it", () => {
  const traces = [trace('hello', 1_030, [create('hello-reply', 201)])];
  const r = run(traces);
  const m = new ObservedRunModel(r, 'greeter', 1_000);
  assert.equal(m.state().current?.request.name, 'hello');
  assert.equal(m.state().current?.calls[0].webhooks, undefined);
  traces.push(trace('rude', 1_040, [create('rude-reply', 403, [denial])]));
  const s = m.state();
  assert.equal(s.status, 'running');
  assert.equal(s.current?.request.name, 'rude');
  const [call] = s.current!.calls;
  assert.deepEqual(
    [call.verb, call.name, call.code, call.latencyMs, call.phase],
    ['create', 'rude-reply', 403, 9, 'write'],
  );
  assert.deepEqual(
    call.webhooks?.map((w) => [w.kind, w.webhook, w.verdict, w.latencyMs, w.message]),
    [['validating', 'vreply.example.com', 'denied (403)', 4, denial.message]],
  );
  assert.deepEqual(
    s.history.map((h) => h.id),
    ['uid-2'],
  );
});

test('keeps a picked reconcile until Restart follows the newest again', () => {
  const traces = [trace('hello', 2_030, []), trace('rude', 2_040, [])];
  const m = new ObservedRunModel(run(traces), 'greeter', 2_000);
  assert.equal(m.inspect('nope'), false);
  assert.equal(m.inspect(traces[0].reconcileID), true);
  traces.push(trace('rude', 2_050, []));
  assert.equal(m.state().current?.id, traces[0].reconcileID);
  assert.match(m.state().message, /picked in the timeline/);
  m.restart();
  assert.equal(m.state().current?.id, traces[2].reconcileID);
});

test('holds nothing, says so when asked to, and says when the manager stopped', () => {
  const r = run([]);
  const m = new ObservedRunModel(r, 'greeter', 3_000);
  assert.equal(m.state().current, null);
  assert.match(m.state().message, /no reconcile has finished yet/);
  m.cannotHold();
  assert.match(m.state().message, /Debug Go Operator steps through them/);
  r.on = false;
  assert.equal(m.state().status, 'stopped');
  assert.match(m.state().message, /\(stopped\)/);
});
