import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  reportRuntime,
  runtimeOfFile,
  type ReportRuntimeInputs,
} from '../../../src/vscode/model/reportruntime';

/** The sample's workspace: a TypeScript reconciler and a Go operator of the same logic. */
function inputs(o: Partial<ReportRuntimeInputs> & { ts?: number; go?: string[] } = {}) {
  const asked: string[] = [];
  const { ts = 1, go = ['/w'], ...rest } = o;
  return {
    goRunning: false,
    tsModules: () => (asked.push('ts'), Promise.resolve(ts)),
    goOperatorModules: () => (asked.push('go'), Promise.resolve(go)),
    ...rest,
    asked,
  };
}

const yaml = { path: '/w/config/samples/apps_v1_webapp_shop.yaml', languageId: 'yaml' };

describe('which runtime Run Robustness Report judges', () => {
  it('asks when a YAML file is active, nothing runs and the workspace holds both', async () => {
    assert.deepEqual(await reportRuntime(inputs({ active: yaml })), { kind: 'ask' });
  });

  it('a YAML file active says nothing: the runtime running decides', async () => {
    assert.deepEqual(await reportRuntime(inputs({ active: yaml, goRunning: true })), {
      kind: 'go',
      from: 'running',
    });
    const ts = '/w/reconcilers/webapp.reconciler.ts';
    assert.deepEqual(await reportRuntime(inputs({ active: yaml, tsRunning: ts })), {
      kind: 'typescript',
      file: ts,
      from: 'running',
    });
    // Both running (one cluster, two runtimes): ask rather than guess.
    assert.deepEqual(await reportRuntime(inputs({ tsRunning: ts, goRunning: true })), {
      kind: 'ask',
    });
  });

  it('follows the active editor before what runs', async () => {
    const goFile = { path: '/w/internal/controller/webapp_controller.go', languageId: 'go' };
    const i = inputs({ active: goFile, tsRunning: '/w/reconcilers/webapp.reconciler.ts' });
    assert.deepEqual(await reportRuntime(i), { kind: 'go', file: goFile.path, from: 'active' });
    assert.deepEqual(i.asked, [], 'the workspace is not searched');
    const tsFile = { path: '/w/reconcilers/webapp.reconciler.ts', languageId: 'typescript' };
    assert.deepEqual(await reportRuntime(inputs({ active: tsFile, goRunning: true })), {
      kind: 'typescript',
      from: 'active',
    });
  });

  it('a file given to the command comes first', async () => {
    assert.deepEqual(
      await reportRuntime(
        inputs({ given: '/w/cmd/main.go', active: { path: '/w/r.ts', languageId: 'typescript' } }),
      ),
      { kind: 'go', file: '/w/cmd/main.go', from: 'given' },
    );
  });

  it('a workspace with one kind runs it without asking', async () => {
    assert.deepEqual(await reportRuntime(inputs({ active: yaml, ts: 0 })), {
      kind: 'go',
      file: '/w',
      from: 'workspace',
    });
    assert.deepEqual(await reportRuntime(inputs({ ts: 0, go: ['/a', '/b'] })), {
      kind: 'go',
      from: 'workspace',
    });
    assert.deepEqual(await reportRuntime(inputs({ go: [] })), {
      kind: 'typescript',
      from: 'workspace',
    });
  });

  it('tells a file’s runtime by its language or its name', () => {
    assert.equal(runtimeOfFile('/w/x.go'), 'go');
    assert.equal(runtimeOfFile('/w/untitled', 'go'), 'go');
    assert.equal(runtimeOfFile('/w/r.mjs'), 'typescript');
    assert.equal(runtimeOfFile('/w/r', 'javascript'), 'typescript');
    assert.equal(runtimeOfFile('/w/a.yaml', 'yaml'), undefined);
    assert.equal(runtimeOfFile('/w/go.mod', 'go.mod'), undefined);
  });
});
