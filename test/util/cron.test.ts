import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRfc3339InZone, parseCronSchedule } from '../../src/util/cron';

const T0 = Date.parse('2026-01-01T00:00:30Z');

function nexts(spec: string, zone?: string, from = T0, n = 3): string[] {
  const s = parseCronSchedule(spec, zone);
  const out: string[] = [];
  for (let t: number | undefined = from, i = 0; i < n; i++) {
    t = s.next(t!);
    out.push(t === undefined ? 'none' : new Date(t).toISOString());
  }
  return out;
}

test('five-field schedules: steps, ranges, lists and names', () => {
  assert.deepEqual(nexts('*/15 * * * *'), [
    '2026-01-01T00:15:00.000Z',
    '2026-01-01T00:30:00.000Z',
    '2026-01-01T00:45:00.000Z',
  ]);
  assert.deepEqual(nexts('30 6-16/4 * * 1-5'), [
    '2026-01-01T06:30:00.000Z',
    '2026-01-01T10:30:00.000Z',
    '2026-01-01T14:30:00.000Z',
  ]);
  assert.deepEqual(nexts('0 9 * JAN,feb mon', undefined, T0, 2), [
    '2026-01-05T09:00:00.000Z',
    '2026-01-12T09:00:00.000Z',
  ]);
});

test('day of month and day of week both restricted: either matches, as cron does', () => {
  // 2026-01-02 is a Friday; the 13th a Tuesday.
  assert.deepEqual(nexts('0 0 13 * 5'), [
    '2026-01-02T00:00:00.000Z',
    '2026-01-09T00:00:00.000Z',
    '2026-01-13T00:00:00.000Z',
  ]);
});

test('descriptors: @hourly, @daily, @weekly, @monthly, @yearly and @every', () => {
  assert.equal(nexts('@hourly')[0], '2026-01-01T01:00:00.000Z');
  assert.equal(nexts('@daily')[0], '2026-01-02T00:00:00.000Z');
  assert.equal(nexts('@weekly')[0], '2026-01-04T00:00:00.000Z');
  assert.equal(nexts('@monthly')[0], '2026-02-01T00:00:00.000Z');
  assert.equal(nexts('@annually')[0], '2027-01-01T00:00:00.000Z');
  assert.deepEqual(nexts('@every 1m30s', undefined, T0, 2), [
    '2026-01-01T00:02:00.000Z',
    '2026-01-01T00:03:30.000Z',
  ]);
});

test('a schedule that never fires within five years has no next time', () => {
  assert.deepEqual(nexts('0 0 31 2 *', undefined, T0, 1), ['none']);
  assert.equal(nexts('0 0 29 2 *')[0], '2028-02-29T00:00:00.000Z');
});

test('time zones: the zone’s wall clock, across daylight saving changes', () => {
  assert.equal(nexts('0 9 * * *', 'America/New_York')[0], '2026-01-01T14:00:00.000Z');
  assert.equal(nexts('TZ=Asia/Tokyo 0 9 * * *')[0], '2026-01-02T00:00:00.000Z');
  // 02:00 does not exist on 2026-03-08 in New York: the run moves past the jump.
  assert.deepEqual(nexts('0 2 * * *', 'America/New_York', Date.parse('2026-03-08T00:00:00Z'), 2), [
    '2026-03-08T07:00:00.000Z',
    '2026-03-09T06:00:00.000Z',
  ]);
  assert.equal(
    formatRfc3339InZone(Date.parse('2026-01-02T00:00:00Z'), 'Asia/Tokyo'),
    '2026-01-02T09:00:00+09:00',
  );
  assert.equal(
    formatRfc3339InZone(Date.parse('2026-01-02T00:00:00Z'), 'UTC'),
    '2026-01-02T00:00:00Z',
  );
});

test('bad schedules fail with robfig/cron’s messages', () => {
  const msg = (s: string) => {
    try {
      parseCronSchedule(s);
      return 'parsed';
    } catch (err) {
      return (err as Error).message;
    }
  };
  assert.equal(msg(''), 'empty spec string');
  assert.equal(msg('bad'), 'expected exactly 5 fields, found 1: [bad]');
  assert.equal(msg('61 * * * *'), 'end of range (61) above maximum (59): 61');
  assert.equal(msg('0 0 0 * *'), 'beginning of range (0) below minimum (1): 0');
  assert.equal(msg('5-1 * * * *'), 'beginning of range (5) beyond end of range (1): 5-1');
  assert.equal(
    msg('x * * * *'),
    'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
  );
  assert.equal(msg('*/0 * * * *'), 'step of range should be a positive number: */0');
  assert.equal(msg('@fortnightly'), 'unrecognized descriptor: @fortnightly');
  assert.equal(msg('@every x'), 'failed to parse duration @every x: time: invalid duration "x"');
});
