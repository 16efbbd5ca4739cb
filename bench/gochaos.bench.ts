// The Go robustness report's wall time on the sample (`chaos --go`: the manager built once, then a
// baseline and nine fault classes against fresh served clusters, on the real clock, with the
// default duration and settle window). The sample's manager never settles (it hot-loops on the
// WebApp its quota starves), so every run lasts the whole duration: the floor is a warm
// `go build` of the same module, measured in the same run, plus ten durations. Needs Go.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_GO_DURATION_MS, goChaos } from '../src/runtime/gochaos';
import { checkGoVersion, goBuild, goVersion } from '../src/runtime/gotoolchain';

const SAMPLE = join(__dirname, '..', 'samples/quota-operator');

async function main(): Promise<void> {
  const problem = checkGoVersion(await goVersion());
  if (problem) {
    console.log(`skipped: ${problem}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rs-gochaos-bench-'));
  try {
    await goBuild({ cwd: SAMPLE, out: join(dir, 'warm') }); // fills the build cache
    const t0 = performance.now();
    const built = await goBuild({ cwd: SAMPLE, out: join(dir, 'manager') });
    if (!built.ok) throw new Error(built.output);
    const build = performance.now() - t0;
    const t1 = performance.now();
    const report = await goChaos({
      moduleDir: SAMPLE,
      manifests: [join(SAMPLE, 'config/crd/bases'), join(SAMPLE, 'config/samples')],
    });
    const wall = performance.now() - t1;
    const runs = report.cases.length + 1;
    const floor = build + runs * DEFAULT_GO_DURATION_MS;
    const settled = report.baseline.steadyAtMs !== null ? 'settled' : 'never settled';
    console.log(
      `Go chaos report on the sample: ${wall.toFixed(0)} ms (${(wall / floor).toFixed(2)}x the floor of ${floor.toFixed(0)} ms: a warm go build at ${build.toFixed(0)} ms + ${runs} × ${DEFAULT_GO_DURATION_MS} ms; baseline ${settled}, ${report.cases.filter((c) => c.converged).length}/${report.cases.length} cases converged)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
