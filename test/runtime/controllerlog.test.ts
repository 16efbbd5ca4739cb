/** A controller's log: records stamped with the controller and reconcileID, bounded, handed on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControllerLog, MAX_LOG_RECORDS, type LogRecord } from '../../src/runtime/controllerlog';

describe('ControllerLog', () => {
  it('stamps each record with the time, controller and reconcileID, and hands it on', () => {
    let now = 5;
    const seen: LogRecord[] = [];
    const log = new ControllerLog(
      'widgets',
      () => now,
      (r) => seen.push(r),
    );
    log.logger('id-1').info('Reconciling', { name: 'a' });
    now = 7;
    log.logger().error(new Error('boom'), 'Reconciler error');
    log.logger('id-2').error({ message: 'not an Error' }, 'failed');
    log.logger('id-3').error('a string', 'failed');
    assert.deepEqual(log.records, [
      {
        at: 5,
        controller: 'widgets',
        reconcileID: 'id-1',
        level: 'info',
        msg: 'Reconciling',
        values: { name: 'a' },
      },
      { at: 7, controller: 'widgets', level: 'error', msg: 'Reconciler error', error: 'boom' },
      {
        at: 7,
        controller: 'widgets',
        reconcileID: 'id-2',
        level: 'error',
        msg: 'failed',
        error: 'not an Error',
      },
      {
        at: 7,
        controller: 'widgets',
        reconcileID: 'id-3',
        level: 'error',
        msg: 'failed',
        error: 'a string',
      },
    ]);
    assert.deepEqual(seen, log.records);
  });

  it('keeps the newest records only', () => {
    const log = new ControllerLog(
      'c',
      () => 0,
      () => {},
    );
    const logger = log.logger();
    for (let i = 0; i < MAX_LOG_RECORDS + 5; i++) logger.info(`m${i}`);
    assert.equal(log.records.length, MAX_LOG_RECORDS);
    assert.equal(log.records[0].msg, 'm5');
  });
});
