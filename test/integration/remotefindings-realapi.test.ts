/**
 * Findings of an operator session on a real cluster: the sample's Go manager run as Run Go
 * Operator runs it (goprocess.ts, its own user) through the recording proxy, against the reference
 * control plane (kube-apiserver and kube-controller-manager, scripts/realapi) standing in for a
 * user's cluster. The sample's ResourceQuota leaves one of its Deployments short of pods: the
 * cluster's own ReplicaSet controller records FailedCreate Warnings on the ReplicaSet, which the
 * operator never reads. RemoteFindingsSource reads them, and their owner chain, with the user's
 * own credentials (the admin's here), and the quota conflict becomes a finding of the session —
 * from an Event, not from a call of the operator's. Its watch is gone once the session stops it.
 *
 * Skipped, saying why, when the reference binaries are not built (`node scripts/realapi/build.mjs`)
 * or Go is missing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isBuilt, realapiDir } from '../../scripts/realapi/build.mjs';
import { startControlPlane, type ControlPlane } from '../../scripts/realapi/controlplane.mjs';
import { writeProxyKubeconfig } from '../../src/proxy/kubeconfig';
import { startProxy, type ProxyHandle } from '../../src/proxy/server';
import { loadUpstream } from '../../src/proxy/upstream';
import type { Finding } from '../../src/runtime/findings';
import {
  DEFAULT_RUN_COMMAND,
  GO_OPERATOR_USER,
  GoManagerProcess,
  freePort,
} from '../../src/runtime/goprocess';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { ObservedManager } from '../../src/runtime/observedcontroller';
import { observedFindings } from '../../src/runtime/observedfindings';
import { RemoteFindingsSource } from '../../src/runtime/remotefindings';
import { connectContext } from '../../src/vscode/kubeconfigsource';
import { ROOT } from './serve';

const SAMPLE = join(ROOT, 'samples', 'quota-operator');

const notBuilt = !isBuilt()
  ? `the reference control plane is not built in ${realapiDir()} (node scripts/realapi/build.mjs builds it)`
  : false;

function kubectl(kubeconfig: string, cacheDir: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args],
      { timeout: 120_000, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    ),
  );
}

async function until<T>(
  what: string,
  fn: () => T | undefined | Promise<T | undefined>,
  ms: number,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('findings from a real cluster’s Events, for an operator run through the proxy', async () => {
  const goProblem = checkGoVersion(await goVersion());
  const skip = notBuilt || goProblem;
  let dir: string;
  let cp: ControlPlane;
  let proxy: ProxyHandle;
  let proc: GoManagerProcess | undefined;
  let source: RemoteFindingsSource | undefined;
  /** The watches of Events the control plane has open before the session reads any. */
  let baseline = 0;
  const observed = new ObservedManager(GO_OPERATOR_USER);
  const problems: string[] = [];
  const output: string[] = [];
  const admin = (...args: string[]) => kubectl(cp.kubeconfig, join(dir, 'kubectl-cache'), args);
  /** The apiserver's own count of the watches of Events open now. */
  const eventWatches = async () => {
    const metrics = await admin('get', '--raw', '/metrics');
    return metrics
      .split('\n')
      .filter(
        (l) =>
          l.startsWith('apiserver_longrunning_requests{') &&
          l.includes('resource="events"') &&
          l.includes('verb="WATCH"'),
      )
      .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  };

  before(async () => {
    if (skip) return;
    dir = mkdtempSync(join(tmpdir(), 'remotefindings-realapi-'));
    cp = await startControlPlane({ binDir: realapiDir(), dir });
    baseline = await eventWatches();
    // Connecting (discovery) starts before the CRD exists: the WebApp type may be discovered later.
    const reader = connectContext(cp.kubeconfig, 'reference');
    proxy = await startProxy({
      upstream: await loadUpstream({ kubeconfig: cp.kubeconfig, context: 'reference' }),
    });
    proxy.addUser(GO_OPERATOR_USER);
    const kubeconfig = join(dir, 'operator.kubeconfig');
    writeProxyKubeconfig(kubeconfig, proxy.kubeconfig(undefined, GO_OPERATOR_USER), cp.kubeconfig);
    proxy.audit.subscribe((ev) => observed.onAudit(ev));
    // The sample as its README sets it up: the CRD, the quota of three pods, the two WebApps
    // (four pods between them). The quota controller computes the quota before any pod is made.
    await admin('apply', '-f', join(SAMPLE, 'config', 'crd', 'bases'));
    await admin('wait', '--for=condition=Established', 'crd/webapps.apps.example.com');
    await admin('apply', '-f', join(SAMPLE, 'config', 'samples', 'resourcequota.yaml'));
    await admin(
      'wait',
      '--for=jsonpath={.status.hard.pods}=3',
      '-n',
      'default',
      'resourcequota/compute',
    );
    for (const app of ['apps_v1_webapp_shop.yaml', 'apps_v1_webapp_blog.yaml'])
      await admin('apply', '-f', join(SAMPLE, 'config', 'samples', app));
    const since = proxy.audit.events().at(-1)?.seq ?? 0;
    proc = new GoManagerProcess({
      command: DEFAULT_RUN_COMMAND,
      cwd: SAMPLE,
      kubeconfig,
      metricsPort: await freePort(),
    });
    proc.on('log', (e) => observed.onLog(e));
    proc.on('line', (l) => output.push(l.text));
    await proc.start();
    // As a session does: the source follows the record from the manager's start, whenever the
    // connection is made.
    source = new RemoteFindingsSource(await reader, {
      user: GO_OPERATOR_USER,
      onProblem: (m) => problems.push(m),
    });
    source.follow(proxy.audit, since);
  });

  after(async () => {
    await proc?.stop();
    source?.dispose();
    await proxy?.close();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it(
    'finds the quota conflict from the FailedCreate the cluster’s ReplicaSet controller records',
    { skip, timeout: 600_000 },
    async () => {
      const s = source!;
      const finding = await until(
        'a quota-conflict finding from an Event',
        (): Finding | undefined => {
          observed.flush();
          return observedFindings(observed, s).find(
            (f) => f.kind === 'quota-conflict' && f.evidence.source === 'event',
          );
        },
        300_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${problems.join('\n')}\n${output.slice(-30).join('\n')}`);
      });
      assert.equal(finding.controller, 'webapp');
      assert.ok(['shop', 'blog'].includes(finding.request?.name ?? ''), finding.message);
      assert.equal(finding.evidence.quota, 'compute');
      assert.equal(finding.evidence.limited, 'pods=3');
      assert.equal((finding.evidence.event as { reason: string }).reason, 'FailedCreate');
      assert.deepEqual(
        (finding.evidence.ownerChain as Array<{ kind: string }>).map((o) => o.kind),
        ['ReplicaSet', 'Deployment', 'WebApp'],
      );
      // Only the namespace the operator wrote to is watched, and it could be.
      assert.deepEqual(s.namespaces(), ['default']);
      assert.deepEqual(problems, []);
      // None of the operator's own calls met the quota: the finding is the Event's alone.
      const refused = proxy.audit
        .events({ user: GO_OPERATOR_USER })
        .filter((e) => e.message?.includes('exceeded quota'));
      assert.deepEqual(refused, []);
    },
  );

  it(
    'stops its watch of the Events when the session disposes of it',
    { skip, timeout: 120_000 },
    async () => {
      assert.equal(await eventWatches(), baseline + 1, 'the Events of default are watched');
      source!.dispose();
      await until(
        'the watch of Events to end on the apiserver',
        async () => (await eventWatches()) === baseline,
        60_000,
      );
      assert.deepEqual(source!.events(), []);
    },
  );
});
