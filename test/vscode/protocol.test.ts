// src/protocol.ts sits above src/vscode, but the unit suite runs test/vscode: its messages are the editor's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRobustnessMessage, parseWebviewMessage } from '../../src/protocol';

test('injectFault is accepted only with one of the debugger faults', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'injectFault', fault: 'conflict' }), {
    type: 'injectFault',
    fault: 'conflict',
  });
  assert.deepEqual(parseWebviewMessage({ type: 'injectFault', fault: 'delay', extra: 1 }), {
    type: 'injectFault',
    fault: 'delay',
  });
  assert.equal(parseWebviewMessage({ type: 'injectFault', fault: 'gone' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'injectFault', fault: ['conflict'] }), undefined);
  assert.equal(parseWebviewMessage({ type: 'injectFault' }), undefined);
});

test('the robustness panel may ask for a rerun or the debugger on a named fault, nothing else', () => {
  assert.deepEqual(parseRobustnessMessage({ type: 'rerun' }), { type: 'rerun' });
  assert.deepEqual(parseRobustnessMessage({ type: 'openInDebugger', fault: 'status-500' }), {
    type: 'openInDebugger',
    fault: 'status-500',
  });
  assert.equal(parseRobustnessMessage({ type: 'openInDebugger', fault: '' }), undefined);
  assert.equal(parseRobustnessMessage({ type: 'openInDebugger', fault: 3 }), undefined);
  assert.equal(parseRobustnessMessage({ type: 'step' }), undefined);
  assert.equal(parseRobustnessMessage(null), undefined);
});
