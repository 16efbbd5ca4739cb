import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StatusError,
  ignoreNotFound,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  newConflict,
  newNotFound,
  OBJECT_MODIFIED,
} from '../../../src/cluster/apimachinery/errors';

test('StatusError carries the Status body, code and reason', () => {
  const e = newConflict({ group: 'example.com', resource: 'widgets' }, 'w1', OBJECT_MODIFIED);
  assert.ok(e instanceof StatusError);
  assert.equal(e.code, 409);
  assert.equal(e.reason, 'Conflict');
  assert.deepEqual(
    {
      kind: e.status.kind,
      apiVersion: e.status.apiVersion,
      status: e.status.status,
      details: e.status.details,
    },
    {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      details: { name: 'w1', group: 'example.com', kind: 'widgets' },
    },
  );
  assert.equal(
    e.message,
    'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again',
  );
});

test('the is* helpers work on plain objects that crossed a worker boundary', () => {
  assert.ok(isNotFound({ code: 404 }));
  assert.ok(isNotFound({ reason: 'NotFound', code: 404, message: 'x' }));
  assert.ok(isConflict({ status: { reason: 'Conflict', code: 409 } }));
  assert.ok(isForbidden({ code: 403 }));
  assert.ok(isInvalid({ reason: 'Invalid' }));
  assert.ok(isGone({ code: 410, reason: 'Expired' }));
  assert.ok(!isNotFound(new Error('boom')));
  assert.ok(!isNotFound(undefined));
});

test('ignoreNotFound swallows NotFound and rethrows anything else', async () => {
  assert.equal(ignoreNotFound(newNotFound({ group: '', resource: 'pods' }, 'p')), undefined);
  assert.throws(() => ignoreNotFound(new Error('boom')), /boom/);
  const got = await Promise.reject(newNotFound({ group: '', resource: 'pods' }, 'p')).catch(
    ignoreNotFound,
  );
  assert.equal(got, undefined);
});
