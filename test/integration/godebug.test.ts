/**
 * Delve drives the sample's real manager (controller-runtime v0.24.1) against the served fake
 * cluster, and the Go debugger turns its stops into phases. The cluster is served in-process
 * (as `serve` does) so the session can read the cluster's audit record of the manager's requests
 * — the codes of its writes. Needs Go and Delve (`scripts/bootstrap.mjs` installs both parts);
 * skipped, saying why, without them.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Cluster } from '../../src/cluster/cluster';
import { startServer, type ServerHandle } from '../../src/cluster/endpoints/server';
import { DELVE_MISSING, findDelve } from '../../src/runtime/godebug/delve';
import type { GoPhase } from '../../src/runtime/godebug/phases';
import type { GoDebugSession } from '../../src/runtime/godebug/session';
import { parseZapLine } from '../../src/runtime/zaplog';
import { USER, blogCluster, sampleSession } from './godebugsample';

/** Running, as opposed to gone or a zombie waiting for a parent that no longer exists to reap it. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('Go debugger: the sample manager under Delve', async () => {
  const dlv = await findDelve();
  const skip = dlv ? false : DELVE_MISSING;
  let cluster: Cluster;
  let server: ServerHandle;
  let dir: string;

  before(async () => {
    if (skip) return;
    cluster = blogCluster(200);
    server = await startServer({ cluster });
    server.addUser(USER);
    dir = mkdtempSync(join(tmpdir(), 'rs-godebug-'));
  });

  after(async () => {
    if (skip) return;
    await server.close();
    cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const session = (): Promise<GoDebugSession> => sampleSession(dlv!, server, dir);

  it(
    'steps the first reconcile of default/blog phase by phase',
    { skip, timeout: 900_000 },
    async () => {
      const s = await session();
      try {
        await s.start();
        const phases: GoPhase[] = [];
        for (let i = 0; i < 6; i++) phases.push(await s.step());
        assert.deepEqual(
          phases.map((p) => p.summary),
          [
            'dequeue default/blog',
            'reconcile default/blog',
            'read get WebApp default/blog (cache) → 200',
            'read get Deployment default/blog (cache) → 404 NotFound',
            'write create Deployment default/blog (server) → 201',
            'result RequeueAfter: 5s; queue: forget, then add after 5s',
          ],
        );
        const [, reconcile, , , create, result] = phases;
        assert.match(reconcile.location!.file, /internal\/controller\/webapp_controller\.go$/);
        // The created Deployment as the cluster stored it, owned by the WebApp.
        const created = create.call!.after as {
          metadata: { ownerReferences?: Array<{ kind: string }> };
        };
        assert.equal(created.metadata.ownerReferences?.[0]?.kind, 'WebApp');
        assert.deepEqual(result.next, { action: 'requeueAfter', delayMs: 5000 });
        assert.match(result.reconcileID!, /^[0-9a-f-]{36}$/);
        // The first phase already has controller-runtime's reconcileID and controller name.
        assert.equal(phases[0].reconcileID, result.reconcileID);
        assert.equal(phases[0].controller, 'webapp');
        // A server call's latency comes from the cluster's record of it.
        assert.equal(typeof create.call!.latencyMs, 'number');
        // The manager's zap logs come out through Delve, where the panel's timeline and findings
        // read them: its V(5) "Reconciling" of this very reconcile is there.
        const logged = s
          .output()
          .split('\n')
          .map(parseZapLine)
          .filter((e) => e?.reconcileID === result.reconcileID);
        assert.ok(logged.some((e) => e?.msg === 'Reconciling'));
      } finally {
        await s.stop();
      }
    },
  );

  it(
    'says the manager exited when it dies while held, and leaves nothing running',
    { skip, timeout: 900_000 },
    async () => {
      const s = await session();
      try {
        await s.start();
        await s.step();
        const managers = execFileSync('ps', ['-o', 'pid=', '--ppid', String(s.delvePid())], {
          encoding: 'utf8',
        })
          .trim()
          .split('\n')
          .map(Number)
          .filter(Boolean);
        assert.ok(managers.length > 0);
        const exited = new Promise<string>((r) => s.on('exit', (e) => r(e.message)));
        for (const pid of managers) process.kill(pid, 'SIGKILL');
        await assert.rejects(s.step(), /the manager exited while under the debugger/);
        assert.match(await exited, /exited while under the debugger/);
        await s.stop();
        for (const pid of [...managers, s.delvePid()])
          assert.equal(alive(pid), false, `pid ${pid} still running`);
      } finally {
        await s.stop();
      }
    },
  );
});
