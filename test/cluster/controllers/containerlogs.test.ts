/**
 * The fake node's container logs, read as the kubelet reads them: the last MAX_LINES lines are
 * kept, tail before since, limitBytes counts bytes (it may cut a character, as the kubelet's
 * LimitWriter does), a follower gets new lines until the container ends or the log is removed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ContainerLogs,
  MAX_LINES,
  logTimestamp,
} from '../../../src/cluster/controllers/containerlogs';

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('container logs', () => {
  it('keeps the last MAX_LINES lines, dropping the oldest', () => {
    const logs = new ContainerLogs();
    for (let i = 0; i < MAX_LINES + 5; i++) logs.write('c1', T0 + i, `line ${i}`);
    const lines = logs.read('c1').toString().trimEnd().split('\n');
    assert.equal(lines.length, MAX_LINES);
    assert.equal(lines[0], 'line 5');
    assert.equal(lines.at(-1), `line ${MAX_LINES + 4}`);
  });

  it('applies tailLines, then since', () => {
    const logs = new ContainerLogs();
    for (let i = 0; i < 5; i++) logs.write('c1', T0 + i * 1000, `l${i}`);
    assert.equal(logs.read('c1', { tailLines: 2 }).toString(), 'l3\nl4\n');
    assert.equal(logs.read('c1', { since: T0 + 2000 }).toString(), 'l2\nl3\nl4\n');
    assert.equal(logs.read('c1', { tailLines: 4, since: T0 + 3000 }).toString(), 'l3\nl4\n');
  });

  it('counts limitBytes in bytes, cutting through a character as the kubelet does', () => {
    const logs = new ContainerLogs();
    logs.write('c1', T0, 'héllo');
    const out = logs.read('c1', { limitBytes: 2 });
    assert.equal(out.length, 2);
    assert.deepEqual([...out], [0x68, 0xc3]);
  });

  it('prefixes RFC3339 times with nine fractional digits', () => {
    assert.equal(logTimestamp(T0 + 1234), '2026-01-01T00:00:01.234000000Z');
    const logs = new ContainerLogs();
    logs.write('c1', T0 + 5, 'x');
    assert.equal(
      logs.read('c1', { timestamps: true }).toString(),
      '2026-01-01T00:00:00.005000000Z x\n',
    );
  });

  it('follows until the container ends, and ends at once for an ended one', () => {
    const logs = new ContainerLogs();
    logs.write('c1', T0, 'a');
    const got: string[] = [];
    let done = 0;
    logs.follow(
      'c1',
      {},
      (b) => got.push(b.toString()),
      () => done++,
    );
    logs.write('c1', T0 + 1, 'b');
    assert.deepEqual(got, ['a\n', 'b\n']);
    assert.equal(done, 0);
    logs.end('c1');
    assert.equal(done, 1);
    logs.write('c1', T0 + 2, 'after the end');
    assert.deepEqual(got, ['a\n', 'b\n']);
    let again = 0;
    logs.follow(
      'c1',
      {},
      () => undefined,
      () => again++,
    );
    assert.equal(again, 1);
  });

  it('stops a follower that leaves, and ends followers when the log is removed', () => {
    const logs = new ContainerLogs();
    logs.write('c1', T0, 'before');
    const got: string[] = [];
    const noop = () => undefined;
    const leave = logs.follow('c1', {}, (b) => got.push(b.toString()), noop);
    leave();
    logs.write('c1', T0, 'unseen');
    assert.deepEqual(got, ['before\n']);
    let done = 0;
    logs.follow('c1', {}, noop, () => done++);
    assert.equal(done, 0);
    logs.remove('c1');
    assert.equal(done, 1);
    assert.equal(logs.has('c1'), false);
    assert.equal(logs.read('c1').length, 0);
  });

  it('ends a follow of a log that does not exist at once, keeping nothing', () => {
    const logs = new ContainerLogs();
    let done = 0;
    logs.follow(
      'never',
      {},
      () => undefined,
      () => done++,
    );
    assert.equal(done, 1);
    logs.end('never');
    assert.equal(logs.has('never'), false);
  });
});
