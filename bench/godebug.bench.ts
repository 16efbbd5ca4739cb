/**
 * Debug Go Operator, without VS Code: the latency of one Step (continue to the next phase
 * breakpoint and read it through DAP) over the first reconcile of the sample's default/blog,
 * under Delve with a warm build. The floor is one DAP round trip to the same Delve (a `threads`
 * request), measured in the same run: a Step is a handful of them. Needs Go and Delve; skipped
 * without them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/cluster/endpoints/server';
import { DELVE_MISSING, findDelve } from '../src/runtime/godebug/delve';
// The same sample session as the Go debugger's integration tests.
import { blogCluster, sampleSession, USER } from '../test/integration/godebugsample';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  const dlv = await findDelve();
  if (!dlv) {
    console.log(`skipped: ${DELVE_MISSING}`);
    return;
  }
  const cluster = blogCluster(200);
  const server = await startServer({ cluster });
  server.addUser(USER);
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-godebug-'));
  const s = await sampleSession(dlv, server, dir);
  try {
    await s.start();
    await s.step(); // held at the first phase: the manager is up
    const steps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await s.step();
      steps.push(performance.now() - t);
    }
    const trips: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await s.roundTrip();
      trips.push(performance.now() - t);
    }
    const step = median(steps);
    const floor = median(trips);
    console.log(
      `Go debugger Step → phase: ${step.toFixed(1)} ms median of ${steps.length} = ${(step / floor).toFixed(1)}× one DAP round trip (${floor.toFixed(2)} ms)`,
    );
  } finally {
    await s.stop();
    await server.close();
    cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
