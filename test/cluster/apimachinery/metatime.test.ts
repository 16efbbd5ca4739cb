/**
 * metav1.Time and metav1.MicroTime as the apiserver decodes and stores them: any zone and (for
 * Time) any fraction in, UTC out at the type's precision; what Go's time.Parse refuses is its error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseMetaTime } from '../../../src/cluster/apimachinery/metatime';
import { served } from '../http';
import type { Served } from '../http';

const micro = (s: string) => parseMetaTime(s, true);
const time = (s: string) => parseMetaTime(s, false);

describe('metav1.MicroTime', () => {
  it('stores the six digits client-go and client-node send, in UTC', () => {
    assert.deepEqual(micro('2026-12-01T01:02:03.000000Z'), {
      value: '2026-12-01T01:02:03.000000Z',
    });
    assert.deepEqual(micro('2026-12-01T01:02:03.123000Z'), {
      value: '2026-12-01T01:02:03.123000Z',
    });
    assert.deepEqual(micro('2026-12-01T03:02:03.123456+02:00'), {
      value: '2026-12-01T01:02:03.123456Z',
    });
    assert.deepEqual(micro('2026-11-30T23:32:03.000001-01:30'), {
      value: '2026-12-01T01:02:03.000001Z',
    });
  });

  it('refuses other widths with the error of Go’s RFC3339Micro layout', () => {
    assert.deepEqual(micro('2026-12-01T01:02:03.123Z'), {
      error:
        'parsing time "2026-12-01T01:02:03.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    });
    assert.deepEqual(micro('2026-12-01T01:02:03.636526400Z'), {
      error:
        'parsing time "2026-12-01T01:02:03.636526400Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "400Z" as "Z07:00"',
    });
    assert.deepEqual(micro('2026-12-01T01:02:03+02:00'), {
      error:
        'parsing time "2026-12-01T01:02:03+02:00" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "+02:00" as ".000000"',
    });
  });
});

describe('metav1.Time', () => {
  it('takes any fraction and zone and stores whole seconds in UTC, truncated', () => {
    assert.deepEqual(time('2026-12-01T01:02:03Z'), { value: '2026-12-01T01:02:03Z' });
    assert.deepEqual(time('2026-12-01T01:02:03.999Z'), { value: '2026-12-01T01:02:03Z' });
    assert.deepEqual(time('2026-12-01T01:02:03.999999999Z'), { value: '2026-12-01T01:02:03Z' });
    assert.deepEqual(time('2026-12-01T01:30:00+02:00'), { value: '2026-11-30T23:30:00Z' });
    assert.deepEqual(time('2026-12-31T23:30:00-01:00'), { value: '2027-01-01T00:30:00Z' });
  });

  it('refuses what Go’s RFC3339 layout refuses, with its error', () => {
    assert.deepEqual(time(''), {
      error: 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"',
    });
    assert.deepEqual(time('2026-12-01 01:02:03Z'), {
      error:
        'parsing time "2026-12-01 01:02:03Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 01:02:03Z" as "T"',
    });
    assert.deepEqual(time('2026-02-29T00:00:00Z'), {
      error: 'parsing time "2026-02-29T00:00:00Z": day out of range',
    });
    assert.deepEqual(time('2026-13-01T00:00:00Z'), {
      error: 'parsing time "2026-13-01T00:00:00Z": month out of range',
    });
    assert.deepEqual(time('2026-12-01T01:02:03Z now'), {
      error: 'parsing time "2026-12-01T01:02:03Z now": extra text: " now"',
    });
  });
});

describe('times written over HTTP', () => {
  let s: Served;
  before(async () => {
    s = await served();
  });
  after(() => s.close());

  it('stores a Lease’s renewTime and acquireTime in UTC with six digits', async () => {
    const r = await s.call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lock' },
      spec: {
        holderIdentity: 'me',
        acquireTime: '2026-12-01T03:02:03.000000+02:00',
        renewTime: '2026-12-01T01:02:03.123000Z',
      },
    });
    assert.equal(r.status, 201, r.body);
    const spec = (JSON.parse(r.body) as { spec: Record<string, string> }).spec;
    assert.equal(spec.acquireTime, '2026-12-01T01:02:03.000000Z');
    assert.equal(spec.renewTime, '2026-12-01T01:02:03.123000Z');
  });

  it('answers a Lease with a millisecond renewTime 400, as the apiserver’s decoder does', async () => {
    const r = await s.call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'js' },
      spec: { renewTime: '2026-12-01T01:02:03.123Z' },
    });
    assert.equal(r.status, 400);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-12-01T01:02:03.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    );
  });

  it('stores an events.k8s.io eventTime in UTC and a core Event’s lastTimestamp in seconds', async () => {
    const e = await s.call('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      eventTime: '2026-12-01T03:02:03.654321+02:00',
      reportingController: 'x',
      reportingInstance: 'y',
      action: 'Create',
      reason: 'Created',
      type: 'Normal',
      regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
    });
    assert.equal(e.status, 201, e.body);
    assert.equal(
      (JSON.parse(e.body) as { eventTime: string }).eventTime,
      '2026-12-01T01:02:03.654321Z',
    );
    const c = await s.call('POST', '/api/v1/namespaces/default/events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e2' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
      reason: 'Created',
      firstTimestamp: '2026-12-01T01:02:03.987Z',
      lastTimestamp: '2026-12-01T02:02:03.123456789+01:00',
    });
    assert.equal(c.status, 201, c.body);
    const core = JSON.parse(c.body) as Record<string, string>;
    assert.equal(core.firstTimestamp, '2026-12-01T01:02:03Z');
    assert.equal(core.lastTimestamp, '2026-12-01T01:02:03Z');
  });
});
