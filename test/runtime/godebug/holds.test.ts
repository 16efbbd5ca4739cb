import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { holdReason, outcomesAt, type GoBreakpoints } from '../../../src/runtime/godebug/holds';
import type { GoPhase } from '../../../src/runtime/godebug/phases';
import { phases, req } from './fixtures';

const [dequeue, , readNotFound] = phases;
const conflict: GoPhase = {
  phase: 'write',
  summary: 'write update Deployment default/blog (server) → 409 Conflict',
  call: {
    verb: 'update',
    kind: 'Deployment',
    ...req,
    subresource: '',
    source: 'server',
    code: 409,
    reason: 'Conflict',
  },
};
const requeueAfter: GoPhase = {
  phase: 'result',
  summary: 'result RequeueAfter: 5s',
  request: req,
  result: { requeue: false, requeueAfterMs: 5000, error: null, terminal: false },
};
const failed: GoPhase = {
  phase: 'result',
  summary: 'result boom',
  request: req,
  result: { requeue: false, requeueAfterMs: 0, error: 'boom', terminal: false },
};
const none: GoBreakpoints = { phases: [], outcomes: [] };

describe('Go debugger: which stops hold', () => {
  it("the session's start runs past dequeue to the user's Reconcile, whatever the breakpoints", () => {
    const all: GoBreakpoints = { phases: ['dequeue', 'reconcile', 'read'], outcomes: [] };
    const [, reconcile] = phases;
    assert.equal(holdReason(dequeue, all, 'reconcile'), undefined);
    assert.equal(holdReason(reconcile, none, 'reconcile'), 'step');
  });

  it('a Step holds at the next phase, breakpoints or not', () => {
    assert.equal(holdReason(dequeue, none, true), 'step');
    assert.equal(holdReason(readNotFound, none, true), 'step');
  });

  it('a Continue passes a phase without a breakpoint and holds at one with it', () => {
    assert.equal(holdReason(dequeue, none, false), undefined);
    assert.equal(holdReason(dequeue, { phases: ['write'], outcomes: [] }, false), undefined);
    assert.equal(holdReason(conflict, { phases: ['write'], outcomes: [] }, false), 'breakpoint');
  });

  it('an outcome breakpoint holds where the call or the Result shows that outcome', () => {
    const onNotFound: GoBreakpoints = { phases: [], outcomes: ['NotFound'] };
    assert.equal(holdReason(readNotFound, onNotFound, false), 'breakpoint');
    assert.equal(holdReason(conflict, onNotFound, false), undefined);
    assert.equal(holdReason(conflict, { phases: [], outcomes: ['Conflict'] }, false), 'breakpoint');
    assert.equal(
      holdReason(requeueAfter, { phases: [], outcomes: ['requeue'] }, false),
      'breakpoint',
    );
    assert.equal(holdReason(requeueAfter, { phases: [], outcomes: ['error'] }, false), undefined);
    assert.equal(holdReason(failed, { phases: [], outcomes: ['error'] }, false), 'breakpoint');
  });

  it('reads the outcomes of a stop', () => {
    assert.deepEqual(outcomesAt(readNotFound), ['NotFound']);
    assert.deepEqual(outcomesAt(requeueAfter), ['requeue']);
    assert.deepEqual(outcomesAt(failed), ['error']);
    assert.deepEqual(outcomesAt(dequeue), []);
  });
});
