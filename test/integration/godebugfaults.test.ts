/**
 * "Fail the next call with…" for the sample's real manager under Delve: held at its Deployment
 * update, a Conflict is injected into the served cluster's FaultInjector; the manager's next
 * update of that Deployment meets it, and the stop shows the 409 and the fault's name from the
 * audit record. Needs Go and Delve; skipped, saying why, without them.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Cluster } from '../../src/cluster/cluster';
import { FaultInjector } from '../../src/cluster/faults';
import { startServer, type ServerHandle } from '../../src/cluster/endpoints/server';
import { DELVE_MISSING, findDelve } from '../../src/runtime/godebug/delve';
import { GoDebugFaults } from '../../src/vscode/model/godebugfaults';
import type { GoStop } from '../../src/vscode/model/godebugview';
import { USER, blogCluster, sampleSession } from './godebugsample';

describe('Go debugger: a fault for the held call', async () => {
  const dlv = await findDelve();
  const skip = dlv ? false : DELVE_MISSING;
  let cluster: Cluster;
  let server: ServerHandle;
  let dir: string;
  const injector = new FaultInjector([]);

  before(async () => {
    if (skip) return;
    // Pods never turn Ready during the test: every pass updates the Deployment.
    cluster = blogCluster(3_600_000);
    server = await startServer({ cluster, faults: injector });
    server.addUser(USER);
    dir = mkdtempSync(join(tmpdir(), 'rs-godebugfaults-'));
  });

  after(async () => {
    if (skip) return;
    await server.close();
    cluster.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "fails the manager's next update of the held Deployment with a Conflict",
    { skip, timeout: 900_000 },
    async () => {
      const s = await sampleSession(dlv!, server, dir);
      const faults = new GoDebugFaults(() => injector);
      const stops: GoStop[] = [];
      const step = async () => {
        const phase = await s.step();
        stops.push({ phase, at: Date.now() });
        return phase;
      };
      try {
        await s.start();
        // Step to the first update of the Deployment (the pass after the create).
        let held = await step();
        for (let i = 0; i < 30 && !(held.phase === 'write' && held.call?.verb === 'update'); i++)
          held = await step();
        assert.equal(held.summary, 'write update Deployment default/blog (server) → 200');
        assert.equal(faults.target(stops, true)?.resource, 'deployments');
        const message = faults.inject(stops, true, 'conflict');
        assert.match(message, /next update deployments default\/blog will fail with Conflict/);
        // On to the next update: it is the faulted one.
        let next = await step();
        for (let i = 0; i < 30 && !(next.phase === 'write' && next.call?.verb === 'update'); i++)
          next = await step();
        assert.equal(next.call?.code, 409);
        assert.equal(next.call?.reason, 'Conflict');
        assert.equal(next.call?.fault, 'debugger-1: Conflict');
        // The reconcile returns the error: controller-runtime backs off.
        let result = await step();
        while (result.phase !== 'result') result = await step();
        assert.match(result.result?.error ?? '', /the object has been modified/);
        assert.equal(result.next?.action, 'rateLimited');
      } finally {
        await s.stop();
      }
    },
  );
});
