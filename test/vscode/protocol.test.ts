// src/protocol.ts sits above src/vscode, but the unit suite runs test/vscode: its messages are the editor's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWebviewMessage } from '../../src/protocol';

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
