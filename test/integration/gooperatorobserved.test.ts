/**
 * The sample's Go manager run the way Run Go Operator runs it (goprocess.ts, its own user and
 * kubeconfig) against a served fake cluster: its reconciles are seen in its logs, its writes in
 * the audit record, and the quota conflict becomes a finding — no VS Code involved. Skipped
 * where Go is missing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { writeKubeconfigFile } from '../../src/cluster/auth/kubeconfig';
import { loadManifests } from '../../src/cluster/manifests';
import { startServer, type ServerHandle } from '../../src/cluster/endpoints/server';
import { analyze, type ClusterEvent } from '../../src/runtime/findings';
import {
  DEFAULT_RUN_COMMAND,
  GO_OPERATOR_USER,
  GoManagerProcess,
  freePort,
} from '../../src/runtime/goprocess';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { ObservedManager } from '../../src/runtime/observedcontroller';
import { ROOT } from './serve';

const SAMPLE = join(ROOT, 'samples', 'quota-operator');
const WEBAPP = { apiVersion: 'apps.example.com/v1', kind: 'WebApp' };

async function until<T>(what: string, fn: () => T | undefined, ms = 240_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the sample Go operator, observed', { timeout: 300_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());
  let cluster: Cluster;
  let server: ServerHandle;
  let proc: GoManagerProcess;
  let dir: string;
  const observed = new ObservedManager(GO_OPERATOR_USER);
  const output: string[] = [];

  before(async () => {
    if (goProblem) return;
    dir = mkdtempSync(join(tmpdir(), 'rs-goop-'));
    cluster = createCluster({ podReadyDelayMs: 200 });
    loadManifests(cluster, [join(SAMPLE, 'config/crd/bases'), join(SAMPLE, 'config/samples')]);
    server = await startServer({ cluster });
    server.addUser(GO_OPERATOR_USER);
    const kubeconfig = join(dir, 'kubeconfig');
    writeKubeconfigFile(kubeconfig, server.kubeconfig('op', GO_OPERATOR_USER));
    server.audit.subscribe((e) => observed.onAudit(e));
    proc = new GoManagerProcess({
      command: DEFAULT_RUN_COMMAND,
      cwd: SAMPLE,
      kubeconfig,
      metricsPort: await freePort(),
    });
    proc.on('log', (e) => observed.onLog(e));
    proc.on('line', (l) => output.push(l.text));
    await proc.start();
  });

  after(async () => {
    await proc?.stop();
    await server?.close();
    cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'reconciles the WebApps, with its writes attributed to its reconciles',
    { skip: goProblem },
    async () => {
      await until('both WebApps to have a phase', () =>
        ['shop', 'blog'].every(
          (name) =>
            (
              cluster.peek(WEBAPP, { namespace: 'default', name })?.status as
                { phase?: string } | undefined
            )?.phase,
        ),
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${output.slice(-30).join('\n')}`);
      });
      // The manager logs a reconcile's end after its writes: wait for those lines to come through.
      const created = await until(
        'both Deployment creates in its reconciles',
        () => {
          observed.flush();
          const names = (observed.get('webapp')?.traces ?? [])
            .flatMap((t) => t.calls)
            .filter((x) => x.verb === 'create' && x.resource === 'deployments')
            .map((x) => x.name)
            .sort();
          return names.length >= 2 ? names : undefined;
        },
        30_000,
      );
      assert.deepEqual(created, ['blog', 'shop']);
      assert.equal(observed.get('webapp')!.kind, 'WebApp');
      // Every request the audit log holds for this user came from the manager's own client.
      const mine = server.audit.events({ user: GO_OPERATOR_USER });
      assert.ok(mine.length > 0);
      assert.ok(mine.every((e) => e.userAgent.includes('kubernetes/')));
    },
  );

  it('reads its queue from /metrics', { skip: goProblem }, async () => {
    const samples = await proc.scrape();
    observed.onMetrics(samples);
    assert.ok(samples.some((s) => s.name === 'workqueue_adds_total' && s.labels.name === 'webapp'));
    assert.ok(observed.get('webapp')!.metrics.adds > 0);
  });

  it(
    'finds the quota conflict from the FailedCreate events on what it owns',
    { skip: goProblem },
    async () => {
      const finding = await until('a quota-conflict finding', () =>
        analyze({
          controller: observed.get('webapp')!,
          forType: WEBAPP,
          api: cluster,
          events: cluster.list({ apiVersion: 'v1', kind: 'Event' })
            .items as unknown as ClusterEvent[],
          durationMs: 0,
        }).find((f) => f.kind === 'quota-conflict'),
      );
      assert.equal(finding.evidence.quota, 'compute');
    },
  );
});
