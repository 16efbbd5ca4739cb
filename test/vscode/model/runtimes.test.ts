import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { runtimeConflict } from '../../../src/vscode/model/runtimes';

const idle = { go: false, goDebug: false };

describe('one runtime reconciles the cluster at a time', () => {
  it('lets a runtime start when nothing else runs, or when it replaces itself', () => {
    assert.equal(runtimeConflict('go', idle), undefined);
    assert.equal(runtimeConflict('go', { ...idle, go: true }), undefined);
    assert.equal(
      runtimeConflict('typescript', { ...idle, typescript: 'reconciler.ts' }),
      undefined,
    );
  });

  it('asks before the Go operator runs beside the TypeScript reconciler, and stops that one', () => {
    const c = runtimeConflict('go', { ...idle, typescript: 'reconciler.ts' });
    assert.deepEqual(c, {
      stop: ['typescript'],
      message:
        'The TypeScript reconciler reconciler.ts is running on the cluster. Two runtimes would reconcile the same objects at once.',
      action: 'Stop It and Run',
    });
  });

  it('stops both Go operators before the TypeScript reconciler runs', () => {
    const c = runtimeConflict('typescript', { go: true, goDebug: true });
    assert.deepEqual(c?.stop, ['go', 'go-debug']);
    assert.match(c!.message, /^The Go operator and the Go operator under the debugger are running/);
  });

  it('does not debug the Go operator beside the one Run Go Operator started', () => {
    const c = runtimeConflict('go-debug', { ...idle, go: true });
    assert.deepEqual(c?.stop, ['go']);
    assert.equal(c?.action, 'Stop It and Debug');
  });
});
