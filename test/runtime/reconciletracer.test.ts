/** The controller's tracer on its own: a trace per reconcile with its triggers, own writes recognised, traces bounded. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReconcileTracer } from '../../src/runtime/reconciletracer';
import type { ApiCall } from '../../src/runtime/trace';
import { VirtualClock } from '../../src/util/clock';

const req = (name: string) => ({ namespace: 'default', name });

function write(resourceVersion: string): ApiCall {
  return {
    verb: 'update',
    resource: 'configmaps',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'default',
    name: 'a',
    subresource: '',
    code: 200,
    source: 'server',
    at: 0,
    resourceVersion,
  };
}

describe('ReconcileTracer', () => {
  it('begins a trace with the triggers it is given, or none', () => {
    const clock = new VirtualClock(100);
    const tracer = new ReconcileTracer('c', clock);
    const triggers = [
      { at: 1, kind: 'event' as const },
      { at: 2, kind: 'event' as const },
    ];
    const first = tracer.begin('default/a', req('a'), 1, 50, triggers);
    assert.equal(first.triggers, triggers);
    assert.equal(first.queuedAt, 50);
    assert.equal(first.start, 100);
    assert.deepEqual(tracer.begin('default/a', req('a'), 1, undefined, undefined).triggers, []);
  });

  it('recognises a watch event caused by one of its own writes by resourceVersion, once', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock());
    const trace = tracer.begin('default/a', req('a'), 1, undefined, undefined);
    tracer.wrote(trace, write('42'));
    tracer.wrote(trace, write('44'));
    assert.equal(tracer.takeWriter('43'), undefined);
    assert.equal(tracer.takeWriter(undefined), undefined);
    assert.deepEqual(tracer.takeWriter('42'), { key: 'default/a', traceId: trace.id });
    // The event has come: the write is forgotten, the other one is still known.
    assert.equal(tracer.takeWriter('42'), undefined);
    assert.deepEqual(tracer.takeWriter('44'), { key: 'default/a', traceId: trace.id });
  });

  it('keeps the newest maxTraces traces, numbered on, with reconcileIDs that repeat run to run', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock(), 2);
    for (let i = 0; i < 3; i++) tracer.begin('default/a', req('a'), 1, undefined, undefined);
    assert.deepEqual(
      tracer.traces.map((t) => t.id),
      [2, 3],
    );
    const again = new ReconcileTracer('c', new VirtualClock());
    const id = again.begin('default/a', req('a'), 1, undefined, undefined).reconcileID;
    assert.match(id, /^[0-9a-f]{8}-0000-4000-8000-000000000001$/);
    assert.equal(
      new ReconcileTracer('c', new VirtualClock()).begin(
        'default/x',
        req('x'),
        1,
        undefined,
        undefined,
      ).reconcileID,
      id,
    );
    assert.notEqual(
      new ReconcileTracer('d', new VirtualClock()).begin(
        'default/a',
        req('a'),
        1,
        undefined,
        undefined,
      ).reconcileID,
      id,
    );
  });
});
