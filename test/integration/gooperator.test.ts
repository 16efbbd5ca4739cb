/**
 * The sample's real Go manager (controller-runtime, client-go) against `serve`, checked with
 * kubectl; its envtest suite through `reconcile-studio test`; its CRD against controller-gen.
 * These need Go 1.24 or newer and fail saying so without it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, ok, serve } from './serve';
import type { Served } from './serve';

const SAMPLE = join(ROOT, 'samples', 'quota-operator');
const tmp = mkdtempSync(join(tmpdir(), 'rs-gooperator-'));
const manager = join(tmp, 'manager');

function requireGo(): void {
  let version = '';
  try {
    version = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
  } catch {
    // reported below
  }
  const m = /^go1\.(\d+)/.exec(version);
  if (!m || Number(m[1]) < 24)
    throw new Error(
      `Go 1.24 or newer is needed for the Go operator tests (${version ? `found ${version}` : 'no `go` on the PATH'})`,
    );
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: SAMPLE, env: { ...process.env, ...env }, maxBuffer: 64 << 20, timeout: 600_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, out: stdout + stderr });
      },
    );
  });
}

before(async () => {
  requireGo();
  // One build per run; the Go build cache keeps it quick after the first.
  const b = await run('go', ['build', '-o', manager, './cmd']);
  assert.equal(b.code, 0, `go build failed:\n${b.out}`);
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Polls until `check` stops throwing; its last error is the failure when it never does. */
async function eventually(check: () => Promise<void>, attempts = 120): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

interface Obj {
  metadata: {
    name: string;
    uid: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
  };
  spec: Record<string, unknown>;
  status?: { phase?: string; readyReplicas?: number };
}

async function getJson<T>(kubeconfig: string, args: string[]): Promise<T> {
  return JSON.parse(await ok(kubeconfig, [...args, '-o', 'json'])) as T;
}

/** Both WebApps at their steady state: owned Deployments, status written, the quota seen. */
async function steadyState(kubeconfig: string): Promise<void> {
  await eventually(async () => {
    const apps = (await getJson<{ items: Obj[] }>(kubeconfig, ['get', 'webapps'])).items;
    const deploys = (await getJson<{ items: Obj[] }>(kubeconfig, ['get', 'deployments'])).items;
    assert.deepEqual(apps.map((a) => a.metadata.name).sort(), ['blog', 'shop']);
    let ready = 0;
    for (const app of apps) {
      const d = deploys.find((x) => x.metadata.name === app.metadata.name);
      assert.ok(d, `the Deployment of ${app.metadata.name} exists`);
      const owner = d.metadata.ownerReferences?.find((o) => o.controller);
      assert.deepEqual(owner && { kind: owner.kind, name: owner.name, uid: owner.uid }, {
        kind: 'WebApp',
        name: app.metadata.name,
        uid: app.metadata.uid,
      });
      assert.equal(d.spec.replicas, app.spec.replicas);
      assert.equal(app.status?.phase, 'Running');
      assert.equal(app.status?.readyReplicas ?? 0, d.status?.readyReplicas ?? 0);
      ready += d.status?.readyReplicas ?? 0;
    }
    // shop (3) and blog (1) share a quota of 3 pods: one of them stays short.
    assert.equal(ready, 3);
    const events = await ok(kubeconfig, [
      'get',
      'events',
      '--field-selector',
      'reason=FailedCreate',
      '-o',
      'jsonpath={.items[*].message}',
    ]);
    assert.match(events, /is forbidden: exceeded quota: compute, requested: pods=1/);
  });
}

interface Running {
  child: ChildProcess;
  output: () => string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

function startManager(kubeconfig: string, args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(
    manager,
    [
      '--metrics-bind-address=127.0.0.1:0',
      '--metrics-secure=false',
      '--health-probe-bind-address=0',
      '--zap-log-level=5',
      ...args,
    ],
    { cwd: SAMPLE, env: { ...process.env, KUBECONFIG: kubeconfig, ...env }, stdio: 'pipe' },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

const watchesOf = (log: string, resource: string) =>
  log
    .split('\n')
    .filter(
      (l) => l.startsWith(`GET /apis/`) && l.includes(`/${resource}?`) && /[?&]watch=true/.test(l),
    );

describe('the sample Go manager against serve', () => {
  let s: Served | undefined;
  let m: Running | undefined;
  after(async () => {
    await m?.stop();
    await s?.stop();
  });

  it('with WatchList and leader election: steady state, a Lease it holds, re-watches, clean stop', async () => {
    s = await serve([
      '--manifests',
      join(SAMPLE, 'config'),
      '--log-requests',
      '--watch-timeout',
      '2',
    ]);
    m = startManager(s.kubeconfig, ['--leader-elect', '--leader-election-namespace=default']);
    await steadyState(s.kubeconfig);

    const lease = await getJson<{ spec: { holderIdentity: string } }>(s.kubeconfig, [
      'get',
      'lease',
      'a3c5e2f1.example.com',
      '-n',
      'default',
    ]);
    assert.ok(lease.spec.holderIdentity.startsWith(`${hostname()}_`), lease.spec.holderIdentity);
    assert.match(s.output(), /agent="manager\/[^"]*\/leader-election"/);
    // Its "became leader" Event, posted through core/v1, read back through events.k8s.io/v1.
    const leaderEvents = await getJson<{ items: { reason: string; note: string }[] }>(
      s.kubeconfig,
      ['get', 'events.v1.events.k8s.io', '-n', 'default'],
    );
    assert.match(
      leaderEvents.items.find((e) => e.reason === 'LeaderElection')?.note ?? '',
      /became leader/,
    );

    // client-go's WatchList: initial events ended by a bookmark, no separate list.
    const log = s.output();
    assert.match(watchesOf(log, 'webapps')[0], /sendInitialEvents=true/);
    assert.match(log, /GET \/apis accept="application\/json;g=apidiscovery\.k8s\.io;v=v2/);
    assert.match(m.output(), /received the bookmark that marks the end of initial events stream/);

    // The server ends watches every 2 s; the manager re-watches from where it was and keeps
    // reconciling: a WebApp created afterwards gets its Deployment.
    await eventually(async () => assert.ok(watchesOf(s!.output(), 'webapps').length >= 3));
    assert.equal(m.child.exitCode, null, m.output());
    await ok(
      s.kubeconfig,
      ['apply', '-f', '-'],
      'apiVersion: apps.example.com/v1\nkind: WebApp\nmetadata: {name: late, namespace: default}\nspec: {image: nginx:1.27, replicas: 0}\n',
    );
    await eventually(async () => {
      const d = await getJson<Obj>(s!.kubeconfig, ['get', 'deployment', 'late']);
      assert.equal(d.metadata.ownerReferences?.[0]?.name, 'late');
    });

    assert.equal(await m.stop(), 0, m.output());
    assert.match(m.output(), /Wait completed, proceeding to shutdown the manager/);
    assert.doesNotMatch(m.output(), /problem running manager/);
    await s.stop();
  });

  it('with KUBE_FEATURE_WatchListClient=false: list then watch, same steady state', async () => {
    s = await serve(['--manifests', join(SAMPLE, 'config'), '--log-requests']);
    m = startManager(s.kubeconfig, [], { KUBE_FEATURE_WatchListClient: 'false' });
    await steadyState(s.kubeconfig);
    const log = s.output();
    assert.match(log, /GET \/apis\/apps\.example\.com\/v1\/webapps\?limit=500&resourceVersion=0 /);
    for (const w of watchesOf(log, 'webapps')) assert.doesNotMatch(w, /sendInitialEvents/);
    assert.doesNotMatch(log, /leases/);
    assert.equal(await m.stop(), 0, m.output());
    await s.stop();
  });
});

describe('the sample as a kubebuilder project', () => {
  it('passes its envtest suite through reconcile-studio test, without envtest binaries', async () => {
    // With the workload controllers (Deployments get Ready pods) and without (envtest's bare
    // control plane): the suite's assertions hold on both.
    for (const extra of [[], ['--no-controllers']]) {
      const r = await run(
        process.execPath,
        [join(ROOT, 'dist', 'cli.js'), 'test', ...extra, '--', 'go', 'test', './...', '-count=1'],
        { KUBEBUILDER_ASSETS: '' },
      );
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /ok\s+example\.com\/quota-operator\/internal\/controller/);
    }
  });

  it('has the CRD controller-gen generates from its markers', async () => {
    // The version the Makefile pins, which `go generate` uses too.
    const pinned = /CONTROLLER_TOOLS_VERSION \?= (v\S+)/.exec(
      readFileSync(join(SAMPLE, 'Makefile'), 'utf8'),
    )![1];
    assert.match(
      readFileSync(join(SAMPLE, 'api', 'v1', 'generate.go'), 'utf8'),
      new RegExp(`controller-gen@${pinned} `),
    );
    const out = join(tmp, 'crd');
    const r = await run('go', [
      'run',
      `sigs.k8s.io/controller-tools/cmd/controller-gen@${pinned}`,
      'crd',
      'paths=./...',
      `output:crd:artifacts:config=${out}`,
    ]);
    assert.equal(r.code, 0, r.out);
    const file = 'apps.example.com_webapps.yaml';
    assert.equal(
      readFileSync(join(out, file), 'utf8'),
      readFileSync(join(SAMPLE, 'config', 'crd', 'bases', file), 'utf8'),
    );
  });
});
