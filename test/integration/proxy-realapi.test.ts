/**
 * The recording proxy in front of the reference kube-apiserver (scripts/realapi), standing in for
 * a user's real cluster: kubectl and client-node go through the proxy, and the proxy's record of
 * their calls equals the apiserver's own audit log (`--audit-log-path`), call for call — the same
 * audit IDs, verbs, request URIs, codes and user agents.
 *
 * Skipped, saying why, when the reference binaries are not built (`node scripts/realapi/build.mjs`)
 * or etcd is not installed: building them takes many minutes, which this suite does not spend.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBuilt, realapiDir } from '../../scripts/realapi/build.mjs';
import { startControlPlane, type ControlPlane } from '../../scripts/realapi/controlplane.mjs';
import type { AuditEvent } from '../../src/cluster/endpoints/audit';
import { loadUpstream } from '../../src/proxy/upstream';
import { startProxy, type ProxyHandle } from '../../src/proxy/server';
import { writeProxyKubeconfig } from '../../src/proxy/kubeconfig';
import { managerFlags } from '../../src/runtime/goprocess';

const OPERATOR = 'go-operator';
const SAMPLE = join(__dirname, '..', '..', 'samples', 'quota-operator');

const skip = !isBuilt()
  ? `the reference control plane is not built in ${realapiDir()} (node scripts/realapi/build.mjs builds it)`
  : false;

/** `go` 1.24 or newer, which the sample's manager needs; the reason when there is none. */
function goMissing(): string | false {
  try {
    const v = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
    const m = /^go1\.(\d+)/.exec(v);
    return m && Number(m[1]) >= 24
      ? false
      : `the sample's manager needs Go 1.24 or newer (found ${v})`;
  } catch {
    return "the sample's manager needs Go 1.24 or newer (no `go` on the PATH)";
  }
}

/** One line of the apiserver's audit log (audit.k8s.io/v1 Event), the fields compared. */
interface LoggedEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  userAgent?: string;
  user: { username: string };
  responseStatus?: { code: number };
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion?: string;
    subresource?: string;
  };
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`;

function kubectl(kubeconfig: string, cacheDir: string, args: string[], input?: string) {
  return new Promise<string>((resolve, reject) => {
    const p = execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args],
      { timeout: 30_000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
    if (input !== undefined) p.stdin?.end(input);
  });
}

const row = (e: {
  auditID: string;
  verb: string;
  requestURI: string;
  code: number;
  userAgent: string;
}) => `${e.auditID} ${e.verb} ${e.requestURI} ${e.code} ${e.userAgent}`;

describe('recording proxy in front of the reference kube-apiserver', { skip }, () => {
  let dir: string;
  let cp: ControlPlane;
  let proxy: ProxyHandle;
  let kubeconfig: string;
  const auditLog = () => join(dir, 'audit.log');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-realapi-'));
    writeFileSync(join(dir, 'audit-policy.yaml'), POLICY);
    cp = await startControlPlane({
      binDir: realapiDir(),
      dir,
      controllers: false,
      apiserverArgs: [
        `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
        `--audit-log-path=${auditLog()}`,
        '--audit-log-format=json',
      ],
    });
    proxy = await startProxy({
      upstream: await loadUpstream({ kubeconfig: cp.kubeconfig, context: 'reference' }),
    });
    proxy.addUser(OPERATOR);
    kubeconfig = join(dir, 'operator', 'kubeconfig');
    writeProxyKubeconfig(kubeconfig, proxy.kubeconfig(undefined, OPERATOR), cp.kubeconfig);
  });
  after(async () => {
    await proxy?.close();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The apiserver's ResponseComplete events for the admin user, as logged so far. */
  function logged(): LoggedEvent[] {
    if (!existsSync(auditLog())) return [];
    return readFileSync(auditLog(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LoggedEvent)
      .filter((e) => e.stage === 'ResponseComplete' && e.user.username === 'admin');
  }

  /**
   * The proxy's record of its calls since `since`, and the apiserver's log from the first of them
   * on (every request it logged from then came through the proxy), once both have all of them:
   * each records a request as its answer ends, the log a little later.
   */
  async function compare(since: number): Promise<{ mine: AuditEvent[]; theirs: LoggedEvent[] }> {
    let mine: AuditEvent[] = [];
    let theirs: LoggedEvent[] = [];
    for (let i = 0; i < 200; i++) {
      const complete = proxy.audit
        .events({ user: OPERATOR, since })
        .filter((e) => e.stage === 'ResponseComplete');
      // A call the client gave up before the cluster answered (the manager stopping mid-request)
      // has code 0 in the record: the apiserver logged it under the same audit ID, with the
      // answer nobody received. Both sides leave it out.
      const abandoned = new Set(complete.filter((e) => e.code === 0).map((e) => e.auditID));
      mine = complete.filter((e) => !abandoned.has(e.auditID));
      const ids = new Set(mine.map((e) => e.auditID));
      const all = logged().filter((e) => !abandoned.has(e.auditID));
      const first = all.findIndex((e) => ids.has(e.auditID));
      theirs = first < 0 ? [] : all.slice(first);
      if (theirs.length === mine.length && theirs.every((e) => ids.has(e.auditID))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const byId = (a: { auditID: string }, b: { auditID: string }) =>
      a.auditID.localeCompare(b.auditID);
    assert.deepEqual(
      [...mine].sort(byId).map(row),
      [...theirs]
        .sort(byId)
        .map((e) => row({ ...e, code: e.responseStatus?.code ?? 0, userAgent: e.userAgent ?? '' })),
    );
    return { mine, theirs };
  }

  it('records kubectl’s calls — discovery, create, apply, get, patch, delete — as the apiserver logs them', async () => {
    const since = proxy.audit.events().at(-1)?.seq ?? 0;
    const cache = join(dir, 'kubectl-cache');
    await kubectl(kubeconfig, cache, ['create', 'configmap', 'k1', '--from-literal=a=1']);
    await kubectl(
      kubeconfig,
      cache,
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: k2}\ndata: {b: "2"}\n',
    );
    await kubectl(kubeconfig, cache, ['get', 'configmaps', '-o', 'name']);
    await kubectl(kubeconfig, cache, ['patch', 'configmap', 'k1', '-p', '{"data":{"a":"3"}}']);
    await kubectl(kubeconfig, cache, ['get', 'configmap', 'k1', '-o', 'json']);
    await kubectl(kubeconfig, cache, ['delete', 'configmap', 'k1', 'k2']);
    await assert.rejects(kubectl(kubeconfig, cache, ['get', 'configmap', 'k1']), /NotFound/);
    const { mine } = await compare(since);
    const verbs = new Set(mine.map((e) => e.verb));
    for (const v of ['create', 'patch', 'get', 'list', 'delete'])
      assert.ok(verbs.has(v as never), v);
    const patch = mine.find((e) => e.verb === 'patch' && e.name === 'k1');
    assert.equal(patch?.after?.data && (patch.after.data as { a: string }).a, '3');
    assert.equal(patch?.before && (patch.before.data as { a: string }).a, '1');
    const missing = mine.at(-1);
    assert.deepEqual([missing?.code, missing?.reason], [404, 'NotFound']);
  });

  it('records client-node’s calls, a watch’s and protobuf answers’ included, as the apiserver logs them', async () => {
    const k8s = await import('@kubernetes/client-node');
    const since = proxy.audit.events().at(-1)?.seq ?? 0;
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'c1' }, data: { x: '1' } },
    });
    await core.readNamespacedConfigMap({ namespace: 'default', name: 'c1' });
    await core.replaceNamespacedConfigMap({
      namespace: 'default',
      name: 'c1',
      body: { metadata: { name: 'c1' }, data: { x: '2' } },
    });
    await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'none=here' });
    // A watch that the apiserver ends after a second: its events came through the proxy.
    const events: string[] = [];
    await new Promise<void>((resolve, reject) => {
      new k8s.Watch(kc)
        .watch(
          '/api/v1/namespaces/default/configmaps',
          { timeoutSeconds: 1, fieldSelector: 'metadata.name=c1' },
          (type) => events.push(type),
          (err) => (err ? reject(err as Error) : resolve()),
        )
        .catch(reject);
    });
    assert.deepEqual(events, ['ADDED']);
    await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'c1' });
    const { mine } = await compare(since);
    assert.deepEqual(
      mine.map((e) => `${e.verb} ${e.code}`),
      ['create 201', 'get 200', 'update 200', 'list 200', 'watch 200', 'delete 200'],
    );
    assert.equal(mine[4].name, 'c1');
  });

  it(
    'records the sample operator’s Go manager (controller-runtime, client-go, protobuf) call for call',
    {
      skip: goMissing(),
      timeout: 600_000,
    },
    async () => {
      const manager = join(dir, 'manager');
      execFileSync('go', ['build', '-o', manager, './cmd'], { cwd: SAMPLE, stdio: 'pipe' });
      // Set up directly (the admin's own kubectl, not through the proxy): the CRD and one WebApp.
      const cache = join(dir, 'admin-cache');
      await kubectl(cp.kubeconfig, cache, ['apply', '-f', join(SAMPLE, 'config', 'crd', 'bases')]);
      await kubectl(cp.kubeconfig, cache, [
        'wait',
        '--for=condition=Established',
        'crd/webapps.apps.example.com',
      ]);
      await kubectl(cp.kubeconfig, cache, [
        'apply',
        '-f',
        join(SAMPLE, 'config', 'samples', 'apps_v1_webapp_blog.yaml'),
      ]);
      const since = proxy.audit.events().at(-1)?.seq ?? 0;
      const child = spawn(
        manager,
        managerFlags(0).filter((f) => !f.startsWith('--metrics-bind')),
        {
          cwd: SAMPLE,
          env: { ...process.env, KUBECONFIG: kubeconfig },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise((r) => child.once('exit', r));
      try {
        // The reconcile made the WebApp's Deployment and wrote its status, through the proxy.
        const writes = () =>
          proxy.audit
            .events({ user: OPERATOR, since })
            .filter((e) => e.stage === 'ResponseComplete' && e.code < 300);
        // The informer lists, reports synced, and only then opens its watch: the reconcile can
        // finish before the watch request reaches the proxy, so wait for the stream to open too.
        const watching = () =>
          proxy.audit
            .events({ user: OPERATOR, since })
            .some(
              (e) =>
                e.stage === 'ResponseStarted' && e.verb === 'watch' && e.resource === 'webapps',
            );
        for (let i = 0; i < 600; i++) {
          const w = writes();
          if (
            w.some((e) => e.verb === 'create' && e.resource === 'deployments') &&
            w.some((e) => e.resource === 'webapps' && e.subresource === 'status') &&
            watching()
          )
            break;
          if (child.exitCode !== null) throw new Error(`the manager exited:\n${out}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
      // The proxy completes the watch's record when it sees the connection close, which can come
      // a moment after the process is gone: compare once it has (both logs have it then).
      for (let i = 0; i < 100; i++) {
        const closed = proxy.audit
          .events({ user: OPERATOR, since })
          .some(
            (e) => e.stage === 'ResponseComplete' && e.verb === 'watch' && e.resource === 'webapps',
          );
        if (closed) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const { mine } = await compare(since);
      const deploy = mine.find((e) => e.verb === 'create' && e.resource === 'deployments');
      assert.ok(deploy, `the manager created the Deployment:\n${out}`);
      assert.match(deploy.userAgent, /^manager\//);
      // Whether client-go asked for protobuf or JSON, the record has the object decoded.
      assert.equal(deploy.after?.kind, 'Deployment');
      assert.equal(deploy.after?.metadata.name, 'blog');
      assert.ok(mine.some((e) => e.verb === 'watch' && e.resource === 'webapps'));
    },
  );
});
