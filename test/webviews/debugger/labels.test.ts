import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OUTCOMES, PHASES } from '../../../src/protocol';
import { OUTCOME_LABELS, PHASE_LABELS } from '../../../webviews/debugger/labels';

describe('the panel’s names for phases and outcomes', () => {
  it('name every phase and every outcome, each differently', () => {
    assert.deepEqual(Object.keys(PHASE_LABELS).sort(), [...PHASES].sort());
    assert.deepEqual(Object.keys(OUTCOME_LABELS).sort(), [...OUTCOMES].sort());
    const phases = Object.values(PHASE_LABELS);
    const outcomes = Object.values(OUTCOME_LABELS);
    assert.equal(new Set(phases).size, phases.length);
    assert.equal(new Set(outcomes).size, outcomes.length);
    for (const l of [...phases, ...outcomes]) assert.match(l, /^\S/);
  });
});
