import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReconciler, ReconcilerLoadError } from '../../src/runtime/loader';
import { CONFIGMAP, configMap, env } from './helpers';

function fixture(name: string, source: string): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rs-loader-test-'));
  const file = join(dir, name);
  writeFileSync(file, source);
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const GOOD = `import { isNotFound, TerminalError, type Reconciler } from 'reconcile-studio';
const r: Reconciler = {
  for: { apiVersion: 'v1', kind: 'ConfigMap' },
  owns: [{ apiVersion: 'v1', kind: 'Secret' }],
  maxConcurrentReconciles: 2,
  async reconcile(ctx, req) {
    const cm = await ctx.client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, req);
    try {
      await ctx.client.get({ apiVersion: 'v1', kind: 'Secret' }, req);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (cm.data?.mode === 'terminal') throw new TerminalError('bad mode');
    cm.data = { ...cm.data, seen: String(ctx.now()) };
    await ctx.client.update(cm);
    return {};
  },
};
export default r;
`;

for (const isolate of [true, false]) {
  test(`a .ts reconciler importing 'reconcile-studio' loads and runs (${isolate ? 'worker' : 'in-process'})`, async () => {
    const fx = fixture('good.reconciler.ts', GOOD);
    const rec = await loadReconciler(fx.file, { isolate });
    assert.deepEqual(rec.definition, {
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      owns: [{ apiVersion: 'v1', kind: 'Secret' }],
      maxConcurrentReconciles: 2,
    });
    const e = await env();
    const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
    e.cluster.create(configMap('a', { x: '1' }));
    e.cluster.create(configMap('t', { mode: 'terminal' }));
    e.mgr.start();
    await e.clock.advance(0);
    const cm = e.cluster.get(CONFIGMAP, { namespace: 'default', name: 'a' });
    assert.equal((cm.data as Record<string, string>).seen, '0');
    const t = ctrl.traces.find((x) => x.key === 'default/t')!;
    assert.equal(t.outcome, 'terminal', 'TerminalError from the module is recognised');
    assert.equal(t.calls[1].code, 404);
    await e.close();
    await rec.dispose();
    fx.cleanup();
  });
}

test('a synchronous infinite loop is stopped, reported, and the next reconcile still runs', async () => {
  const fx = fixture(
    'loop.reconciler.ts',
    `export default {
  for: { apiVersion: 'v1', kind: 'ConfigMap' },
  async reconcile(ctx: any, req: any) {
    const cm = await ctx.client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, req);
    if (cm.data?.spin) { for (;;) { /* spin */ } }
    return {};
  },
};
`,
  );
  const rec = await loadReconciler(fx.file, { hangTimeoutMs: 300 });
  const e = await env();
  const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
  e.cluster.create(configMap('spin', { spin: 'yes' }));
  e.mgr.start();
  await e.clock.advance(0);
  const t = ctrl.traces[0];
  assert.equal(t.error?.name, 'ReconcileHangError');
  assert.match(t.error!.message, /did not return within 300 ms/);
  assert.equal(t.next?.action, 'rateLimited');
  // a healthy key afterwards runs on the restarted worker
  ctrl.suspend('default/spin');
  e.cluster.create(configMap('fine'));
  await e.clock.advance(10);
  const fine = ctrl.traces.find((x) => x.key === 'default/fine');
  assert.equal(fine?.outcome, 'success');
  await e.close();
  await rec.dispose();
  fx.cleanup();
});

test("errors thrown by user code carry the user's file:line (source-mapped)", async () => {
  const fx = fixture(
    'throws.reconciler.ts',
    `interface Pad { a: number }
export default {
  for: { apiVersion: 'v1', kind: 'ConfigMap' },
  async reconcile() {
    const p: Pad = { a: 1 };
    void p;
    throw new Error('broken on purpose');
  },
};
`,
  );
  for (const isolate of [true, false]) {
    const rec = await loadReconciler(fx.file, { isolate });
    const e = await env();
    const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
    e.cluster.create(configMap('a'));
    e.mgr.start();
    await e.clock.advance(0);
    const err = ctrl.traces[0].error!;
    assert.equal(err.message, 'broken on purpose');
    assert.equal(err.location?.replace(/:\d+$/, ''), `${fx.file}:7`, `isolate=${isolate}`);
    await e.close();
    await rec.dispose();
  }
  fx.cleanup();
});

test('a syntax error is reported at its file:line:column', async () => {
  const fx = fixture(
    'bad.reconciler.ts',
    `export default {\n  for: { apiVersion: 'v1', kind: 'ConfigMap' },\n  reconcile( {\n};\n`,
  );
  await assert.rejects(loadReconciler(fx.file), (err: unknown) => {
    assert.ok(err instanceof ReconcilerLoadError);
    assert.match(String(err.location), /bad\.reconciler\.ts:\d+:\d+$/);
    return true;
  });
  fx.cleanup();
});

test('a module without for/reconcile is refused with an explanation', async () => {
  const fx = fixture('empty.js', 'module.exports = { hello: 1 };');
  await assert.rejects(loadReconciler(fx.file, { isolate: false }), /default-export \{ for/);
  await assert.rejects(loadReconciler(fx.file), /default-export \{ for/);
  fx.cleanup();
});
