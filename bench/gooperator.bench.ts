/**
 * Run Go Operator, without VS Code: the time from starting the sample's manager (`go run ./cmd`
 * with the editor's flags, its own kubeconfig, against a served fake cluster holding the
 * sample's manifests) to its first reconcile ("Reconciling" in its V(5) logs), with a warm build
 * cache. The floor is `go build ./cmd` with the same warm cache (what `go run` pays at the very
 * least before the manager starts), measured in the same run. Needs Go; skipped without it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../src/cluster/builtins';
import { writeKubeconfigFile } from '../src/cluster/auth/kubeconfig';
import { loadManifests } from '../src/cluster/manifests';
import { startServer } from '../src/cluster/endpoints/server';
import { DEFAULT_RUN_COMMAND, GoManagerProcess, freePort } from '../src/runtime/goprocess';
import { checkGoVersion, goVersion } from '../src/runtime/gotoolchain';

const SAMPLE = join(__dirname, '..', 'samples', 'quota-operator');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One run: a fresh cluster, the manager started, ms until its first "Reconciling". */
async function runToFirstReconcile(dir: string): Promise<number> {
  const cluster = createCluster({ podReadyDelayMs: 200 });
  loadManifests(cluster, [join(SAMPLE, 'config/crd/bases'), join(SAMPLE, 'config/samples')]);
  const server = await startServer({ cluster });
  server.addUser('go-operator');
  const kubeconfig = join(dir, 'go-operator.kubeconfig');
  writeKubeconfigFile(kubeconfig, server.kubeconfig('go-operator', 'go-operator'));
  const p = new GoManagerProcess({
    command: DEFAULT_RUN_COMMAND,
    cwd: SAMPLE,
    kubeconfig,
    metricsPort: await freePort(),
  });
  const started = performance.now();
  const first = new Promise<number>((resolve, reject) => {
    p.on('log', (e) => e.msg === 'Reconciling' && resolve(performance.now() - started));
    p.on('exit', (x) => reject(new Error(`manager exited (${x.code}): ${x.lastLines.join('\n')}`)));
  });
  await p.start();
  try {
    return await first;
  } finally {
    await p.stop();
    await server.close();
    cluster.close();
  }
}

async function main(): Promise<void> {
  const problem = checkGoVersion(await goVersion());
  if (problem) {
    console.log(`skipped: ${problem}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-go-'));
  try {
    // Warm the build cache (the first build of controller-runtime takes minutes).
    execFileSync('go', ['build', '-o', join(dir, 'manager'), './cmd'], { cwd: SAMPLE });
    const builds: number[] = [];
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      execFileSync('go', ['build', '-o', join(dir, 'manager'), './cmd'], { cwd: SAMPLE });
      builds.push(performance.now() - t);
      runs.push(await runToFirstReconcile(dir));
    }
    const floor = median(builds);
    const run = median(runs);
    console.log(
      `Run Go Operator → first reconcile: ${run.toFixed(0)} ms = ${(run / floor).toFixed(2)}× a warm \`go build ./cmd\` (${floor.toFixed(0)} ms); median of 3`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
