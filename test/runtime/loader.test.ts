import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadReconciler,
  ReconcilerLoadError,
  type LoadedReconciler,
} from '../../src/runtime/loader';
import { CONFIGMAP, Releases, cleanup, configMap, env, tempDir } from './helpers';

/** `source` written to a temp dir removed when `owner` ends; returns the file's path. */
function fixture(owner: TestContext | Releases, name: string, source: string): { file: string } {
  const dir = tempDir(owner, 'rs-loader-test-');
  const file = join(dir, name);
  writeFileSync(file, source);
  return { file };
}

/** Loads the module of `file`; its worker is ended when `owner` ends. */
async function load(
  owner: TestContext | Releases,
  file: string,
  opts?: Parameters<typeof loadReconciler>[1],
): Promise<LoadedReconciler> {
  const rec = await loadReconciler(file, opts);
  cleanup(owner, () => rec.dispose());
  return rec;
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
  test(`a .ts reconciler importing 'reconcile-studio' loads and runs (${isolate ? 'worker' : 'in-process'})`, async (t) => {
    const fx = fixture(t, 'good.reconciler.ts', GOOD);
    const rec = await load(t, fx.file, { isolate });
    assert.deepEqual(rec.definition, {
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      owns: [{ apiVersion: 'v1', kind: 'Secret' }],
      maxConcurrentReconciles: 2,
    });
    const e = await env(t);
    const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
    e.cluster.create(configMap('a', { x: '1' }));
    e.cluster.create(configMap('t', { mode: 'terminal' }));
    e.mgr.start();
    await e.clock.advance(0);
    const cm = e.cluster.get(CONFIGMAP, { namespace: 'default', name: 'a' });
    assert.equal((cm.data as Record<string, string>).seen, '0');
    const terminal = ctrl.traces.find((x) => x.key === 'default/t')!;
    assert.equal(terminal.outcome, 'terminal', 'TerminalError from the module is recognised');
    assert.equal(terminal.calls[1].code, 404);
  });
}

test('a synchronous infinite loop is stopped, reported, and the next reconcile still runs', async (t) => {
  const fx = fixture(
    t,
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
  const rec = await load(t, fx.file, { hangTimeoutMs: 300 });
  const e = await env(t);
  const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
  e.cluster.create(configMap('spin', { spin: 'yes' }));
  e.mgr.start();
  await e.clock.advance(0);
  const spun = ctrl.traces[0];
  assert.equal(spun.error?.name, 'ReconcileHangError');
  assert.match(spun.error!.message, /did not return within 300 ms/);
  assert.equal(spun.next?.action, 'rateLimited');
  // a healthy key afterwards runs on the restarted worker
  ctrl.suspend('default/spin');
  e.cluster.create(configMap('fine'));
  await e.clock.advance(10);
  const fine = ctrl.traces.find((x) => x.key === 'default/fine');
  assert.equal(fine?.outcome, 'success');
});

test("errors thrown by user code carry the user's file:line (source-mapped)", async (t) => {
  const fx = fixture(
    t,
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
    const rec = await load(t, fx.file, { isolate });
    const e = await env(t);
    const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
    e.cluster.create(configMap('a'));
    e.mgr.start();
    await e.clock.advance(0);
    const err = ctrl.traces[0].error!;
    assert.equal(err.message, 'broken on purpose');
    assert.equal(err.location?.replace(/:\d+$/, ''), `${fx.file}:7`, `isolate=${isolate}`);
  }
});

test('a syntax error is reported at its file:line:column', async (t) => {
  const fx = fixture(
    t,
    'bad.reconciler.ts',
    `export default {\n  for: { apiVersion: 'v1', kind: 'ConfigMap' },\n  reconcile( {\n};\n`,
  );
  await assert.rejects(loadReconciler(fx.file), (err: unknown) => {
    assert.ok(err instanceof ReconcilerLoadError);
    assert.match(String(err.location), /bad\.reconciler\.ts:\d+:\d+$/);
    return true;
  });
});

test('a module without for/reconcile is refused with an explanation', async (t) => {
  const fx = fixture(t, 'empty.js', 'module.exports = { hello: 1 };');
  await assert.rejects(loadReconciler(fx.file, { isolate: false }), /default-export \{ for/);
  await assert.rejects(loadReconciler(fx.file), /default-export \{ for/);
});

/** Loads `source` in a worker, reconciles one ConfigMap, and returns that reconcile's trace. */
async function reconcileOnce(
  name: string,
  source: string,
  opts: Parameters<typeof loadReconciler>[1] = {},
): Promise<import('../../src/runtime/trace').ReconcileTrace> {
  // Released before it returns (callers run it many times in one test), even when it throws.
  const own = new Releases();
  try {
    const fx = fixture(own, name, source);
    const rec = await load(own, fx.file, opts);
    const e = await env(own);
    const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
    e.cluster.create(configMap('a'));
    e.mgr.start();
    await e.clock.advance(0);
    return ctrl.traces[0];
  } finally {
    await own.releaseAll();
  }
}

const CM_FOR = `for: { apiVersion: 'v1', kind: 'ConfigMap' }`;

test('a reconciler calling process.exit(1) fails that reconcile with ReconcilerExitError, and the next runs on a new worker', async (t) => {
  const fx = fixture(
    t,
    'exit.reconciler.js',
    `module.exports = { ${CM_FOR}, async reconcile(ctx, req) { if (req.name === 'die') process.exit(1); return {}; } };`,
  );
  const rec = await load(t, fx.file);
  const e = await env(t);
  const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
  e.cluster.create(configMap('die'));
  e.mgr.start();
  await e.clock.advance(0);
  const died = ctrl.traces[0];
  assert.equal(died.error?.name, 'ReconcilerExitError');
  assert.match(
    died.error!.message,
    /worker exited with code 1 \(the reconciler called process\.exit\?\)/,
  );
  ctrl.suspend('default/die');
  e.cluster.create(configMap('fine'));
  await e.clock.advance(10);
  assert.equal(ctrl.traces.find((x) => x.key === 'default/fine')?.outcome, 'success');
});

test('a reconciler allocating without bound is stopped at the memory limit with ReconcilerOutOfMemoryError', async () => {
  const t = await reconcileOnce(
    'oom.reconciler.js',
    `module.exports = { ${CM_FOR}, async reconcile() { const a = []; for (;;) a.push(new Array(1e6).fill(1)); } };`,
    { memoryLimitMb: 64, hangTimeoutMs: 0 },
  );
  assert.equal(t.error?.name, 'ReconcilerOutOfMemoryError');
  assert.match(t.error!.message, /ran out of memory \(heap limit 64 MB\)/);
});

test('a module that loops at load is refused after the hang time-out, naming the file', async (t) => {
  const fx = fixture(
    t,
    'loadloop.reconciler.js',
    `for (;;) {}\nmodule.exports = { ${CM_FOR}, async reconcile() {} };`,
  );
  await assert.rejects(loadReconciler(fx.file, { hangTimeoutMs: 300 }), (err: unknown) => {
    assert.ok(err instanceof ReconcilerLoadError);
    assert.equal(err.location, fx.file);
    assert.match(err.message, /did not finish loading within 300 ms/);
    return true;
  });
});

test('a module that calls process.exit at load is refused, not waited for', async (t) => {
  const fx = fixture(
    t,
    'loadexit.reconciler.js',
    `process.exit(3);\nmodule.exports = { ${CM_FOR}, async reconcile() {} };`,
  );
  await assert.rejects(loadReconciler(fx.file), /exited with code 3 while loading the module/);
});

test('malformed Results are errors located at the reconcile function; a negative requeueAfter is a success with a warning, as in Go', async () => {
  const cases: Array<[string, string, RegExp | undefined]> = [
    [`'x'`, 'string', /reconcile returned "x", not a Result/],
    [`42`, 'number', /reconcile returned 42, not a Result/],
    [`null`, 'null', /reconcile returned null, not a Result/],
    [`{ requeueAfter: NaN }`, 'nan', /requeueAfter: NaN; requeueAfter must be a finite number/],
    [
      `{ requeueAfter: '5s' }`,
      'str-after',
      /requeueAfter: "5s"; requeueAfter must be a finite number/,
    ],
    [`{ requeue: 'yes' }`, 'str-requeue', /requeue: "yes"; requeue must be a boolean/],
    [`{ requeueAfter: -5 }`, 'negative', undefined],
  ];
  for (const isolate of [true, false]) {
    for (const [value, name, expected] of cases) {
      const t = await reconcileOnce(
        `${name}.reconciler.ts`,
        `interface Pad { a: number }\nconst pad: Pad = { a: 1 };\nvoid pad;\nexport default {\n  ${CM_FOR},\n  async reconcile(): Promise<any> {\n    return ${value};\n  },\n};\n`,
        { isolate },
      );
      const label = `${name} (isolate=${isolate})`;
      if (!expected) {
        assert.equal(t.outcome, 'success', label);
        assert.match(t.warnings.join('\n'), /requeueAfter -5 ms is negative/, label);
        continue;
      }
      assert.equal(t.error?.name, 'InvalidResultError', label);
      assert.match(t.error!.message, expected, label);
      assert.match(
        String(t.error!.location),
        new RegExp(`${name}\\.reconciler\\.ts:6:\\d+$`),
        label,
      );
      assert.equal(t.next?.action, 'rateLimited', label);
    }
  }
});

test('a thrown non-Error is shown as util.inspect shows it, not as [object Object]', async () => {
  for (const isolate of [true, false]) {
    const t = await reconcileOnce(
      'obj.reconciler.js',
      `module.exports = { ${CM_FOR}, async reconcile() { throw { code: 7, why: 'x' }; } };`,
      { isolate },
    );
    assert.equal(t.error?.message, "{ code: 7, why: 'x' }", `isolate=${isolate}`);
  }
});

test('a worker crashing outside a reconcile fails the next reconcile with ReconcilerCrashError, then recovers', async (t) => {
  const fx = fixture(
    t,
    'late.reconciler.js',
    `module.exports = { ${CM_FOR}, async reconcile(ctx, req) {
  if (req.name === 'first') setTimeout(() => { throw new Error('thrown from a timer'); }, 0);
  return {};
} };`,
  );
  const rec = await load(t, fx.file);
  const e = await env(t);
  const ctrl = e.mgr.addReconciler(rec.definition, rec.reconcile);
  e.cluster.create(configMap('first'));
  e.mgr.start();
  await e.clock.advance(0);
  // The timer may fire before the first reconcile's answer has left the worker (then that
  // reconcile reports the crash) or after (then the next one does): either way it is reported.
  assert.ok(
    ctrl.traces[0].outcome === 'success' || ctrl.traces[0].error?.name === 'ReconcilerCrashError',
  );
  // Wait (on the real clock) until the timer has crashed the worker.
  let crashed: import('../../src/runtime/trace').ReconcileTrace | undefined = ctrl.traces.find(
    (t) => t.error,
  );
  for (let i = 0; !crashed; i++) {
    assert.ok(i < 500, 'the crash was never reported');
    e.cluster.create(configMap(`next-${i}`));
    await e.clock.advance(1);
    crashed = ctrl.traces.find((t) => t.error);
    if (!crashed) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(crashed.error?.name, 'ReconcilerCrashError');
  // Between reconciles (reported by the next) or during one (reported by it): never lost.
  assert.match(crashed.error!.message, /worker crashed: thrown from a timer/);
  assert.match(String(crashed.error!.location), /late\.reconciler\.js:2:\d+$/);
  e.cluster.create(configMap('after'));
  await e.clock.advance(10);
  assert.equal(ctrl.traces.find((t) => t.key === 'default/after')?.outcome, 'success');
});
