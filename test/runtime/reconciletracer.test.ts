/** The controller's tracer on its own: triggers gathered per key, own writes recognised, traces bounded. */
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
  it('gives a reconcile the triggers gathered since the last one, then starts afresh', () => {
    const clock = new VirtualClock(100);
    const tracer = new ReconcileTracer('c', clock);
    tracer.triggered('default/a', { at: 1, kind: 'event' });
    tracer.triggered('default/a', { at: 2, kind: 'event' });
    tracer.triggered('default/b', { at: 3, kind: 'event' });
    const first = tracer.begin('default/a', req('a'), 1, 50);
    assert.deepEqual(
      first.triggers.map((t) => t.at),
      [1, 2],
    );
    assert.equal(first.queuedAt, 50);
    assert.equal(first.start, 100);
    assert.deepEqual(tracer.begin('default/a', req('a'), 1, undefined).triggers, []);
    assert.equal(tracer.begin('default/b', req('b'), 2, undefined).triggers.length, 1);
  });

  it('keeps at most 20 triggers per key', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock());
    for (let i = 0; i < 30; i++) tracer.triggered('default/a', { at: i, kind: 'event' });
    assert.equal(tracer.begin('default/a', req('a'), 1, undefined).triggers.length, 20);
  });

  it('recognises a watch event caused by one of its own writes by resourceVersion, once', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock());
    const trace = tracer.begin('default/a', req('a'), 1, undefined);
    tracer.wrote(trace, write('42'));
    tracer.wrote(trace, write('44'));
    assert.equal(tracer.takeWriter('43'), undefined);
    assert.equal(tracer.takeWriter(undefined), undefined);
    assert.deepEqual(tracer.takeWriter('42'), { key: 'default/a', traceId: trace.id });
    // The event has come: the write is forgotten, the other one is still known.
    assert.equal(tracer.takeWriter('42'), undefined);
    assert.deepEqual(tracer.takeWriter('44'), { key: 'default/a', traceId: trace.id });
  });

  it('holds a waiting key’s trigger until it is ready, then dates it from then', async () => {
    const clock = new VirtualClock(10);
    const tracer = new ReconcileTracer('c', clock);
    tracer.willReturn('default/a', { at: 10, kind: 'requeueAfter', fromReconcile: 1 }, true);
    tracer.willReturn('default/a', { at: 11, kind: 'backoff', fromReconcile: 2 }, true);
    await clock.advance(500);
    tracer.ready('default/a');
    const t = tracer.begin('default/a', req('a'), 1, undefined).triggers;
    assert.deepEqual(t, [{ at: 510, kind: 'requeueAfter', fromReconcile: 1 }]);
  });

  it('a key added without a delay gets its trigger at once', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock());
    tracer.willReturn('default/a', { at: 5, kind: 'requeue' }, false);
    assert.equal(tracer.begin('default/a', req('a'), 1, undefined).triggers[0].kind, 'requeue');
  });

  it('drops the triggers of a key that was skipped', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock());
    tracer.triggered('default/a', { at: 1, kind: 'event' });
    tracer.skipped('default/a');
    assert.deepEqual(tracer.begin('default/a', req('a'), 1, undefined).triggers, []);
  });

  it('keeps the newest maxTraces traces, numbered on, with reconcileIDs that repeat run to run', () => {
    const tracer = new ReconcileTracer('c', new VirtualClock(), 2);
    for (let i = 0; i < 3; i++) tracer.begin('default/a', req('a'), 1, undefined);
    assert.deepEqual(
      tracer.traces.map((t) => t.id),
      [2, 3],
    );
    const again = new ReconcileTracer('c', new VirtualClock());
    const id = again.begin('default/a', req('a'), 1, undefined).reconcileID;
    assert.match(id, /^[0-9a-f]{8}-0000-4000-8000-000000000001$/);
    assert.equal(
      new ReconcileTracer('c', new VirtualClock()).begin('default/x', req('x'), 1, undefined)
        .reconcileID,
      id,
    );
    assert.notEqual(
      new ReconcileTracer('d', new VirtualClock()).begin('default/a', req('a'), 1, undefined)
        .reconcileID,
      id,
    );
  });
});
