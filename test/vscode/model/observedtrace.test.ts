/** A Go manager's observed reconcile as the debugger shows it: its calls as phases. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiCall, ReconcileTrace } from '../../../src/runtime/trace';
import { withCallPhases } from '../../../src/vscode/model/observedtrace';

const call = (over: Partial<ApiCall>): ApiCall => ({
  verb: 'get',
  resource: 'webapps',
  apiVersion: 'apps.example.com/v1',
  kind: 'WebApp',
  namespace: 'default',
  name: 'blog',
  subresource: '',
  code: 200,
  source: 'server',
  at: 0,
  ...over,
});

const observed = (calls: ApiCall[], phases: ReconcileTrace['phases']): ReconcileTrace => ({
  id: 1,
  reconcileID: 'uid-1',
  controller: 'webapp',
  request: { namespace: 'default', name: 'blog' },
  key: 'default/blog',
  worker: 0,
  triggers: [],
  start: 100,
  end: 200,
  phases,
  calls,
  warnings: [],
});

test("an observed reconcile's calls become read, write and status phases before its result, in the cluster's order", () => {
  const t = observed(
    [
      call({ verb: 'update', resource: 'webapps', subresource: 'status', code: 500, at: 150 }),
      call({ verb: 'get', at: 110 }),
      call({ verb: 'update', resource: 'deployments', kind: 'Deployment', code: 409, at: 130 }),
    ],
    [
      { phase: 'reconcile', at: 100, summary: 'Reconcile default/blog' },
      { phase: 'result', at: 200, summary: 'error' },
    ],
  );
  const shown = withCallPhases(t);
  assert.deepEqual(
    shown.phases.map((p) => [p.phase, p.summary]),
    [
      ['reconcile', 'Reconcile default/blog'],
      ['read', 'get webapps default/blog → 200'],
      ['write', 'update deployments default/blog → 409'],
      ['status', 'update webapps/status default/blog → 500'],
      ['result', 'error'],
    ],
  );
  assert.equal(shown.phases[2].call, t.calls[2]);
  // The trace it came from is left as it was.
  assert.equal(t.phases.length, 2);
});

test('a trace whose phases already hold its calls (a TypeScript one) is shown as recorded', () => {
  const c = call({});
  const t = observed([c], [{ phase: 'read', at: 0, summary: 'Get', call: c }]);
  assert.equal(withCallPhases(t), t);
  const none = observed([], [{ phase: 'reconcile', at: 0, summary: 'Reconcile' }]);
  assert.equal(withCallPhases(none), none);
});
