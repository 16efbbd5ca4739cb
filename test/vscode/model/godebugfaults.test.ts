import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { FaultInjector, type FaultRequest } from '../../../src/cluster/faults';
import type { GoCall, GoPhase } from '../../../src/runtime/godebug/phases';
import { GoDebugFaults, goFaultTarget } from '../../../src/vscode/model/godebugfaults';
import type { GoStop } from '../../../src/vscode/model/godebugview';
import { goDebuggerState, goReconcileView } from '../../../src/vscode/model/godebugview';
import { phases, req } from '../../runtime/godebug/fixtures';

const UA = 'main/v0.0.0 (linux/amd64) kubernetes/$Format';

function stop(phase: GoPhase['phase'], call: Partial<GoCall> & Pick<GoCall, 'verb'>): GoStop {
  const c: GoCall = {
    kind: 'Deployment',
    ...req,
    subresource: '',
    source: 'server',
    code: 200,
    resource: 'deployments',
    userAgent: UA,
    ...call,
  };
  return { phase: { phase, summary: `${phase} ${c.verb}`, request: req, call: c }, at: 1 };
}

/** The request the manager sends next, as the served cluster's dispatcher sees it. */
function request(over: Partial<FaultRequest> = {}): FaultRequest {
  return {
    verb: 'update',
    group: 'apps',
    resource: 'deployments',
    subresource: '',
    ...req,
    userAgent: UA,
    user: 'go-operator-debug',
    resourceVersion: '',
    ...over,
  };
}

describe('Go debugger: "Fail the next call with…"', () => {
  it('is offered at a held write, status write or server read, not at a cache read or a dequeue', () => {
    const update = stop('write', { verb: 'update' });
    assert.deepEqual(goFaultTarget([update], true), {
      verb: 'update',
      resource: 'deployments',
      subresource: '',
      ...req,
      userAgent: UA,
    });
    assert.equal(goFaultTarget([update], false), undefined, 'only while held');
    assert.equal(
      goFaultTarget([stop('status', { verb: 'update', subresource: 'status' })], true)?.subresource,
      'status',
    );
    assert.equal(goFaultTarget([stop('read', { verb: 'get' })], true)?.verb, 'get');
    assert.equal(
      goFaultTarget([stop('read', { verb: 'get', source: 'cache', resource: undefined })], true),
      undefined,
    );
    assert.equal(goFaultTarget([{ phase: phases[0], at: 0 }], true), undefined);
    // A call the audit record did not show: nothing to match the next one on.
    assert.equal(
      goFaultTarget([stop('write', { verb: 'update', resource: undefined })], true),
      undefined,
    );
    assert.equal(goFaultTarget([stop('write', { verb: 'apply' })], true)?.verb, 'patch');
    // A create that succeeded is not made again; one that failed is retried.
    assert.equal(goFaultTarget([stop('write', { verb: 'create', code: 201 })], true), undefined);
    assert.equal(
      goFaultTarget([stop('write', { verb: 'create', code: 403 })], true)?.verb,
      'create',
    );
  });

  it("fails the manager's next identical call once, and no other client's", () => {
    const injector = new FaultInjector([]);
    const faults = new GoDebugFaults(() => injector);
    const stops = [stop('write', { verb: 'update' })];
    const message = faults.inject(stops, true, 'conflict');
    assert.match(message, /next update deployments default\/blog will fail with Conflict/);
    // One fault per hold.
    assert.equal(faults.target(stops, true), undefined);
    assert.throws(
      () => faults.inject(stops, true, 'internal'),
      /only while the Go operator is held/,
    );
    assert.equal(injector.decide(request({ userAgent: 'kubectl/v1.36.0' })), undefined);
    assert.equal(injector.decide(request({ name: 'shop' })), undefined);
    const hit = injector.decide(request());
    assert.equal(hit?.error?.status.code, 409);
    assert.equal(hit?.fault, 'debugger-1: Conflict');
    assert.equal(injector.decide(request()), undefined, 'one-shot');
    // The next hold offers the controls again.
    const next = [...stops, stop('status', { verb: 'update', subresource: 'status' })];
    assert.equal(faults.target(next, true)?.subresource, 'status');
    faults.inject(next, true, 'delay');
    assert.equal(injector.decide(request({ subresource: 'status' }))?.latencyMs, 2000);
  });

  it('is not offered without a served cluster to inject into', () => {
    const faults = new GoDebugFaults(() => undefined);
    const stops = [stop('write', { verb: 'update' })];
    assert.equal(faults.target(stops, true), undefined);
    assert.throws(() => faults.inject(stops, true, 'timeout'));
  });

  it('marks the faulted call in the API calls pane and names the target in the state', () => {
    const faulted = stop('write', {
      verb: 'update',
      code: 409,
      reason: 'Conflict',
      fault: 'debugger-1: Conflict',
    });
    const v = goReconcileView('WebAppReconciler', [faulted], true);
    assert.equal(v.calls[0].fault, 'debugger-1: Conflict');
    const s = goDebuggerState({
      status: 'held',
      message: '',
      reconciler: 'WebAppReconciler',
      origin: 0,
      stops: [faulted],
      held: true,
      traces: [],
      breakpoints: { phases: [], outcomes: [] },
      findings: [],
      depth: [],
      holds: [],
      faultTarget: 'update deployments default/blog',
    });
    assert.equal(s.faultTarget, 'update deployments default/blog');
  });
});
