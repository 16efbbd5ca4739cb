import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { debuggerTarget, type TargetInputs } from '../../../src/vscode/model/debuggertarget';

function inputs(o: Partial<TargetInputs> & { ts?: number; go?: string[] }): TargetInputs & {
  asked: string[];
} {
  const asked: string[] = [];
  return {
    goActive: false,
    tsRunning: false,
    tsModules: () => (asked.push('ts'), Promise.resolve(o.ts ?? 0)),
    goOperatorModules: () => (asked.push('go'), Promise.resolve(o.go ?? [])),
    ...o,
    asked,
  };
}

describe('which debugger Open Reconcile Debugger opens', () => {
  it('the Go debugger in a Go workspace with no TypeScript reconciler', async () => {
    const i = inputs({ go: ['/w/webapp'] });
    assert.deepEqual(await debuggerTarget(i), { kind: 'go', module: '/w/webapp' });
  });

  it('lets Debug Go Operator ask when several Go modules have a Reconcile', async () => {
    assert.deepEqual(await debuggerTarget(inputs({ go: ['/w/a', '/w/b'] })), {
      kind: 'go',
      module: undefined,
    });
  });

  it('the TypeScript debugger when the workspace has a reconciler module, without analysing Go', async () => {
    const i = inputs({ ts: 1, go: ['/w/webapp'] });
    assert.deepEqual(await debuggerTarget(i), { kind: 'typescript' });
    assert.deepEqual(i.asked, ['ts']);
  });

  it('the TypeScript debugger (and its hint) when there is no reconciler of either kind', async () => {
    assert.deepEqual(await debuggerTarget(inputs({})), { kind: 'typescript' });
  });

  it('follows the file it was given, and a Go session already running', async () => {
    assert.deepEqual(await debuggerTarget(inputs({ given: '/w/x.reconciler.ts', go: ['/w'] })), {
      kind: 'typescript',
    });
    assert.deepEqual(await debuggerTarget(inputs({ given: '/w/internal/c.go' })), {
      kind: 'go',
      module: '/w/internal/c.go',
    });
    const running = inputs({ goActive: true, ts: 3 });
    assert.deepEqual(await debuggerTarget(running), { kind: 'go' });
    assert.deepEqual(running.asked, []);
  });
});
