import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  formatZapEntry,
  parseGoDuration,
  parseZapLine,
  reconcileOutcome,
} from '../../src/runtime/zaplog';

const line = (o: object) => JSON.stringify(o);
const base = {
  level: 'Level(-5)',
  ts: '2026-11-30T23:22:13.123456789Z',
  controller: 'webapp',
  controllerGroup: 'apps.example.com',
  controllerKind: 'WebApp',
  WebApp: { name: 'shop', namespace: 'default' },
  namespace: 'default',
  name: 'shop',
  reconcileID: '0b7c1a1e-5a0e-4f3c-9d0e-2f1b8f6f9a10',
};

describe('zap JSON logs', () => {
  it('parses an entry with its controller keys and an RFC 3339 nano time in ms', () => {
    const e = parseZapLine(line({ ...base, msg: 'Reconciling' }))!;
    assert.equal(e.msg, 'Reconciling');
    assert.equal(e.controller, 'webapp');
    assert.equal(e.controllerKind, 'WebApp');
    assert.equal(e.namespace, 'default');
    assert.equal(e.name, 'shop');
    assert.equal(e.ts, Date.parse('2026-11-30T23:22:13.123Z'));
  });

  it('reads epoch-seconds times (the production encoder)', () => {
    assert.equal(parseZapLine(line({ ts: 1764545000.25, msg: 'x' }))!.ts, 1764545000250);
  });

  it('ignores lines that are not zap entries', () => {
    assert.equal(parseZapLine('go: downloading k8s.io/api v0.36.0'), undefined);
    assert.equal(parseZapLine('{not json'), undefined);
    assert.equal(parseZapLine('{"no":"msg"}'), undefined);
  });

  it("classifies the reconcile handler's messages", () => {
    const o = (msg: string, extra = {}) =>
      reconcileOutcome(parseZapLine(line({ ...base, msg, ...extra }))!);
    assert.deepEqual(o('Reconciling'), { kind: 'start' });
    assert.deepEqual(o('Reconcile successful'), { kind: 'success' });
    assert.deepEqual(o('Reconcile done, requeueing'), { kind: 'requeue' });
    assert.deepEqual(o('Reconcile done, requeueing after 1m30s'), {
      kind: 'requeueAfter',
      afterMs: 90_000,
    });
    assert.deepEqual(o('Reconciler error', { level: 'error', error: 'boom' }), {
      kind: 'error',
      error: 'boom',
    });
    assert.equal(o('a user log line'), undefined);
    // Without a reconcileID it is not the handler's line.
    assert.equal(reconcileOutcome(parseZapLine(line({ msg: 'Reconciling' }))!), undefined);
  });

  it("parses Go's Duration.String()", () => {
    assert.equal(parseGoDuration('500ms'), 500);
    assert.equal(parseGoDuration('1.5s'), 1500);
    assert.equal(parseGoDuration('2h0m0s'), 7_200_000);
    assert.equal(parseGoDuration('1m30s'), 90_000);
    assert.equal(parseGoDuration('0s'), 0);
    assert.ok(Number.isNaN(parseGoDuration('soon')));
  });
});

describe('zap entries in the output channel', () => {
  it('shows time, V level, logger, message and the other fields', () => {
    const e = parseZapLine(
      JSON.stringify({
        level: 'Level(-5)',
        ts: '2026-11-30T23:22:13.123Z',
        logger: 'x',
        msg: 'Reconciling',
        name: 'shop',
      }),
    )!;
    assert.equal(formatZapEntry(e), '23:22:13.123 V(5) [x] Reconciling {"name":"shop"}');
  });
});
