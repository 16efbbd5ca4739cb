import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { run } from '../../src/cli/simulate';
import { capture as captureRun } from './capture';
import { parseDuration } from '../../src/runtime/simulation';

const ROOT = join(__dirname, '..', '..');
const SAMPLE = join(ROOT, 'samples/quota-operator');

const capture = (argv: string[]) => captureRun(run, argv);

test('durations parse as 10m, 90s, 1h30m, 500ms and bare milliseconds', () => {
  assert.equal(parseDuration('10m'), 600_000);
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('250'), 250);
  assert.throws(() => parseDuration('ten minutes'));
});

test('simulate --json on the quota sample prints the documented shape', async () => {
  const { code, out } = await capture([
    '--reconciler',
    join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
    '--manifests',
    join(SAMPLE, 'config'),
    '--duration',
    '10m',
    '--json',
  ]);
  assert.equal(code, 0);
  const doc = JSON.parse(out);
  assert.deepEqual(Object.keys(doc), ['reconciles', 'metrics', 'events', 'findings']);
  assert.ok(doc.reconciles.length >= 4);
  const r = doc.reconciles[0];
  assert.deepEqual(Object.keys(r), ['request', 'start', 'end', 'result', 'error', 'calls']);
  assert.deepEqual(Object.keys(r.request), ['namespace', 'name']);
  assert.deepEqual(Object.keys(r.result), ['requeue', 'requeueAfter']);
  assert.deepEqual(Object.keys(r.calls[0]), [
    'verb',
    'resource',
    'namespace',
    'name',
    'subresource',
    'code',
  ]);
  assert.deepEqual(r.calls[0], {
    verb: 'get',
    resource: 'webapps',
    namespace: 'default',
    name: r.request.name,
    subresource: '',
    code: 200,
  });
  assert.deepEqual(Object.keys(doc.metrics.controller_runtime_reconcile_total), [
    'success',
    'error',
    'requeue',
    'requeue_after',
  ]);
  assert.equal(typeof doc.metrics.workqueue_adds_total, 'number');
  assert.equal(typeof doc.metrics.workqueue_retries_total, 'number');
  for (const f of doc.findings)
    assert.deepEqual(Object.keys(f), ['kind', 'request', 'message', 'evidence']);
  for (const ev of doc.events)
    assert.deepEqual(Object.keys(ev), ['type', 'reason', 'message', 'involvedObject']);
  const kinds = doc.findings.map((f: { kind: string }) => f.kind);
  assert.ok(kinds.includes('status-update-requeue'), kinds.join(','));
  assert.ok(kinds.includes('bottleneck'));
  // shop=3 + blog=1 replicas against a pod quota of 3: FailedCreate on shop's ReplicaSet
  const quota = doc.findings.find((f: { kind: string }) => f.kind === 'quota-conflict');
  assert.ok(quota, kinds.join(','));
  assert.equal(quota.evidence.quota, 'compute');
  assert.deepEqual(
    quota.evidence.ownerChain.map((o: { kind: string }) => o.kind),
    ['ReplicaSet', 'Deployment', 'WebApp'],
  );
  assert.ok(doc.events.some((e: { reason: string }) => e.reason === 'FailedCreate'));
});

test('simulate without --json prints a timeline, the metrics and the findings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-sim-'));
  const file = join(dir, 'flaky.reconciler.js');
  writeFileSync(
    file,
    `module.exports = { for: { apiVersion: 'v1', kind: 'ConfigMap' },
       async reconcile(ctx, req) { if (req.name === 'bad') throw new Error('nope'); return {}; } };`,
  );
  const manifest = join(dir, 'cms.yaml');
  writeFileSync(
    manifest,
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: default}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: default}\n',
  );
  const { code, out } = await capture([
    '--reconciler',
    file,
    '--manifests',
    manifest,
    '--duration',
    '1s',
    '--in-process',
  ]);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(code, 0);
  assert.match(out, /Timeline/);
  assert.match(out, /default\/bad .* error: nope .*→ retry in 5ms/);
  assert.match(out, /controller_runtime_reconcile_total +success=\d+ error=\d+/);
  assert.match(out, /Findings/);
});

test('simulate without --reconciler is a usage error', async () => {
  const { code, err } = await capture(['--duration', '1m']);
  assert.equal(code, 2);
  assert.match(err, /--reconciler is required/);
});

const CM_MANIFEST = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n';

/** The loader's bundle folders in `tmp` (tsx keeps its own cache there too). */
function bundleDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((d) => d.startsWith('reconcile-studio-'));
}

/**
 * `reconcile-studio simulate` as a child process (the CLI from source), with TMPDIR pointing at a
 * private folder so the test can see the bundle folders the run leaves behind.
 */
function simulateChild(
  reconcilerSource: string,
  name: string,
  extra: string[] = [],
): {
  child: ReturnType<typeof spawn>;
  tmp: string;
  done: Promise<{ code: number | null; signal: string | null; out: string; err: string }>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'rs-sim-child-'));
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const file = join(dir, name);
  writeFileSync(file, reconcilerSource);
  writeFileSync(join(dir, 'cm.yaml'), CM_MANIFEST);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(ROOT, 'src/cli/main.ts'),
      'simulate',
      '--reconciler',
      file,
      '--manifests',
      join(dir, 'cm.yaml'),
      '--duration',
      '1m',
      ...extra,
    ],
    { cwd: ROOT, env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const done = once(child, 'exit').then(([code, signal]) => ({ code, signal, out, err }));
  return { child, tmp, done };
}

test('simulate with a reconciler that calls process.exit(1) reports it, stops, exits 1 and leaves no bundle folder', async () => {
  const run = simulateChild(
    `module.exports = { for: { apiVersion: 'v1', kind: 'ConfigMap' }, async reconcile() { process.exit(1); } };`,
    'exit.reconciler.js',
  );
  const { code, out, err } = await run.done;
  assert.equal(code, 1, err);
  assert.match(
    out,
    /Stopped early: the controller stopped at 0\.000s, reconciling default\/a: the reconciler worker exited with code 1/,
  );
  assert.match(out, /Timeline \(1 reconciles\)/);
  assert.match(
    err,
    /simulate: the controller stopped at 0\.000s, reconciling default\/a: .*process\.exit/,
  );
  assert.deepEqual(bundleDirs(run.tmp), []);
  rmSync(join(run.tmp, '..'), { recursive: true, force: true });
});

test('simulate with a module that loops at load fails after --hang-timeout with exit 1 and no bundle folder', async () => {
  const run = simulateChild(
    `for (;;) {}\nmodule.exports = { for: { apiVersion: 'v1', kind: 'ConfigMap' }, async reconcile() {} };`,
    'loadloop.reconciler.js',
    ['--hang-timeout', '500'],
  );
  const { code, err } = await run.done;
  assert.equal(code, 1, err);
  assert.match(err, /loadloop\.reconciler\.js: the module did not finish loading within 500 ms/);
  assert.deepEqual(bundleDirs(run.tmp), []);
  rmSync(join(run.tmp, '..'), { recursive: true, force: true });
});

test('SIGTERM during a hung load ends simulate with 143 and removes the bundle folder', async () => {
  const run = simulateChild(
    `for (;;) {}\nmodule.exports = { for: { apiVersion: 'v1', kind: 'ConfigMap' }, async reconcile() {} };`,
    'loadloop.reconciler.js',
    ['--hang-timeout', '0'],
  );
  // The bundle folder appears once the module is bundled and its worker starts loading it.
  while (bundleDirs(run.tmp).length === 0) {
    await new Promise((r) => setTimeout(r, 50));
  }
  run.child.kill('SIGTERM');
  const { code, err } = await run.done;
  assert.equal(code, 143, err);
  assert.deepEqual(bundleDirs(run.tmp), []);
  rmSync(join(run.tmp, '..'), { recursive: true, force: true });
});

test('simulate reports a reconcile returning "x" as an error at the reconciler\'s file:line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-sim-'));
  const file = join(dir, 'str.reconciler.js');
  writeFileSync(
    file,
    `module.exports = {\n  for: { apiVersion: 'v1', kind: 'ConfigMap' },\n  async reconcile() {\n    return 'x';\n  },\n};\n`,
  );
  writeFileSync(join(dir, 'cm.yaml'), CM_MANIFEST);
  const { code, out } = await capture([
    '--reconciler',
    file,
    '--manifests',
    join(dir, 'cm.yaml'),
    '--duration',
    '1s',
  ]);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(code, 0);
  assert.match(
    out,
    /default\/a .* error: reconcile returned "x", not a Result .*\(.*str\.reconciler\.js:3:\d+\)/,
  );
});

test('simulate rejects a non-numeric --hang-timeout as a usage error', async () => {
  const { code, err } = await capture(['--reconciler', 'x.js', '--hang-timeout', 'soon']);
  assert.equal(code, 2);
  assert.match(err, /--hang-timeout must be a non-negative number, got "soon"/);
});

test('simulate --faults refuses a bad faults file with file:line and exit 2, and a bad --seed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-sim-faults-'));
  try {
    const file = join(dir, 'faults.yaml');
    writeFileSync(file, 'faults:\n  - error: {code: 418}\n');
    const bad = await capture([
      '--reconciler',
      join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
      '--faults',
      file,
    ]);
    assert.equal(bad.code, 2);
    assert.match(
      bad.err,
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: .*code must be one of`),
    );
    const seed = await capture([
      '--reconciler',
      join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
      '--seed',
      'abc',
    ]);
    assert.equal(seed.code, 2);
    assert.match(seed.err, /--seed must be a whole number/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('simulate --faults marks the injected calls in the timeline and the JSON', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-sim-faults-'));
  try {
    const file = join(dir, 'faults.yaml');
    writeFileSync(
      file,
      'faults:\n  - name: one-conflict\n    match: {verb: update, resource: deployments}\n    times: 1\n    error: {code: 409}\n',
    );
    const args = [
      '--reconciler',
      join(SAMPLE, 'reconcilers/webapp.reconciler.ts'),
      '--manifests',
      join(SAMPLE, 'config'),
      '--duration',
      '1m',
      '--in-process',
      '--faults',
      file,
      '--seed',
      '3',
    ];
    const text = await capture(args);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /update deployments 409 \[fault one-conflict\]/);
    const json = await capture([...args, '--json']);
    const doc = JSON.parse(json.out) as { reconciles: Array<{ calls: Array<{ fault?: string }> }> };
    const faulted = doc.reconciles.flatMap((r) => r.calls).filter((c) => c.fault);
    assert.deepEqual(
      faulted.map((c) => c.fault),
      ['one-conflict'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
