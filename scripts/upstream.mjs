// `npm run test:upstream`: controller-runtime's own envtest suites, which nobody here wrote, run
// against the fake cluster (`reconcile-studio test`, envtest's control plane: no
// controllers). The module comes from Go's module cache at the version the sample operator uses;
// it is copied out of the read-only cache into .cache/upstream, each package's test binary is
// built there (Go's build cache makes later builds quick), and each binary runs from its own
// package folder (the suites read testdata relative to it) with a JSON report of every spec.
//
// Usage: node scripts/upstream.mjs [--package pkg/client ...] [--focus REGEX] [--kubeconfig FILE]
//   --kubeconfig FILE runs the suites against that cluster instead (a real kube-apiserver, to tell
//   a fidelity gap from a suite that needs something else).
// Prints each package's figures, writes every failed spec with its failure to
// .cache/upstream/report-<package>.txt, and ends with the totals and the regressions.
//
// test/upstream/passing.txt lists the specs known to pass on the fake cluster: a listed spec that
// fails fails the run (a regression); a spec that fails and is not listed is a known gap, counted
// but not failing the run, until it passes. `--record` rewrites the list from this run (run it
// twice and keep only specs that passed both times: a spec that flakes is not a promise).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { downloadModule, root } from './kubernetes.mjs';

const PACKAGES = ['pkg/client', 'pkg/cache', 'pkg/builder', 'pkg/controller'];

const { values } = parseArgs({
  options: {
    package: { type: 'string', multiple: true },
    focus: { type: 'string' },
    kubeconfig: { type: 'string' },
    record: { type: 'boolean' },
  },
});

const PASSING = join(root, 'test', 'upstream', 'passing.txt');

/** The specs known to pass, as "pkg/client: <spec>" lines (# comments and blanks ignored). */
function knownPassing() {
  if (!existsSync(PASSING)) return new Set();
  return new Set(
    readFileSync(PASSING, 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#')),
  );
}

/** controller-runtime's version: the one the sample operator's go.mod requires. */
function controllerRuntimeVersion() {
  const gomod = readFileSync(join(root, 'samples', 'quota-operator', 'go.mod'), 'utf8');
  const m = /sigs\.k8s\.io\/controller-runtime (v\S+)/.exec(gomod);
  if (!m) throw new Error('samples/quota-operator/go.mod does not require controller-runtime');
  return m[1];
}

/** A writable copy of the module (the module cache is read-only), made once per version. */
function moduleCopy(version) {
  const dir = join(root, '.cache', 'upstream', `controller-runtime@${version}`);
  if (existsSync(join(dir, 'go.mod'))) return dir;
  const info = downloadModule('sigs.k8s.io/controller-runtime', version);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(info.Dir, dir, { recursive: true });
  execFileSync('chmod', ['-R', 'u+w', dir]);
  return dir;
}

function buildTest(dir, pkg) {
  const bin = join(dir, pkg, 'upstream.test');
  console.error(`[upstream] building ${pkg} tests`);
  execFileSync('go', ['test', '-c', '-p', '2', '-o', bin, `./${pkg}`], {
    cwd: dir,
    stdio: 'inherit',
  });
  return bin;
}

/** Ginkgo's JSON report: every spec with its state and, when it failed, where and why. */
function specsOf(reportFile) {
  if (!existsSync(reportFile)) return [];
  const suites = JSON.parse(readFileSync(reportFile, 'utf8'));
  return suites.flatMap((s) =>
    (s.SpecReports ?? [])
      .filter((r) => r.LeafNodeType === 'It')
      .map((r) => ({
        name: [...(r.ContainerHierarchyTexts ?? []), r.LeafNodeText].join(' '),
        state: r.State,
        failure: r.Failure
          ? `${r.Failure.Message}\n    at ${r.Failure.Location?.FileName}:${r.Failure.Location?.LineNumber}`
          : '',
      })),
  );
}

function runSuite(dir, pkg, bin) {
  const report = join(root, '.cache', 'upstream', `report-${pkg.replaceAll('/', '-')}.json`);
  rmSync(report, { force: true });
  const suiteArgs = [
    bin,
    '-test.timeout=30m',
    '-ginkgo.no-color',
    `-ginkgo.json-report=${report}`,
    ...(values.focus ? [`-ginkgo.focus=${values.focus}`] : []),
  ];
  const args = values.kubeconfig
    ? suiteArgs
    : [join(root, 'dist', 'cli.js'), 'test', '--', ...suiteArgs];
  const env = values.kubeconfig
    ? { ...process.env, KUBECONFIG: values.kubeconfig, USE_EXISTING_CLUSTER: 'true' }
    : process.env;
  const started = Date.now();
  const res = spawnSync(
    values.kubeconfig ? args[0] : process.execPath,
    values.kubeconfig ? args.slice(1) : args,
    {
      cwd: join(dir, pkg),
      env,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    },
  );
  const specs = specsOf(report);
  const count = (state) => specs.filter((s) => s.state === state).length;
  const failed = specs.filter(
    (s) => s.state !== 'passed' && s.state !== 'skipped' && s.state !== 'pending',
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const text = join(root, '.cache', 'upstream', `report-${pkg.replaceAll('/', '-')}.txt`);
  writeFileSync(
    text,
    failed
      .map((s) => `[${s.state}] ${s.name}\n    ${s.failure.replaceAll('\n', '\n    ')}\n`)
      .join('\n') +
      (specs.length === 0
        ? `no spec report; the suite's output:\n${res.stdout}\n${res.stderr}`
        : ''),
  );
  const skipped = count('skipped') + count('pending');
  console.log(
    `${pkg}: ${count('passed')} of ${specs.length - skipped} specs passed, ${failed.length} failed, ${skipped} skipped (${seconds} s; failures in ${text.slice(root.length + 1)})`,
  );
  if (specs.length === 0)
    console.log(`${pkg}: the suite did not report (exit ${res.status}); see ${text}`);
  return {
    passed: count('passed'),
    failed: failed.length + (specs.length === 0 ? 1 : 0),
    skipped,
    passedNames: specs.filter((x) => x.state === 'passed').map((x) => `${pkg}: ${x.name}`),
    failedNames: failed.map((x) => `${pkg}: ${x.name}`),
  };
}

const version = controllerRuntimeVersion();
if (!values.kubeconfig) {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    stdio: 'inherit',
    cwd: root,
  });
}
const dir = moduleCopy(version);
console.log(
  `controller-runtime ${version}'s envtest suites against ${values.kubeconfig ? values.kubeconfig : 'the fake cluster'}`,
);
const total = { passed: 0, failed: 0, skipped: 0 };
const passedNames = [];
const failedNames = [];
for (const pkg of values.package ?? PACKAGES) {
  const r = runSuite(dir, pkg, buildTest(dir, pkg));
  total.passed += r.passed;
  total.failed += r.failed;
  total.skipped += r.skipped;
  passedNames.push(...r.passedNames);
  failedNames.push(...r.failedNames);
}
if (values.record) {
  const previous = existsSync(PASSING) ? readFileSync(PASSING, 'utf8').split('\n') : [];
  const header = previous.filter((l) => l.startsWith('#'));
  // The packages this run did not run keep their lines.
  const ran = new Set(values.package ?? PACKAGES);
  const kept = previous.filter((l) => l && !l.startsWith('#') && !ran.has(l.split(':')[0]));
  writeFileSync(PASSING, [...header, ...[...kept, ...passedNames].sort()].join('\n') + '\n');
  console.log(`recorded ${passedNames.length} passing specs in test/upstream/passing.txt`);
}
const known = knownPassing();
const regressions = values.kubeconfig ? [] : failedNames.filter((n) => known.has(n));
for (const n of regressions) console.log(`regression: ${n}`);
const gained = passedNames.filter((n) => !known.has(n)).length;
if (gained && !values.record)
  console.log(`${gained} specs pass that test/upstream/passing.txt does not list yet (--record)`);
// Worded apart from a test runner's closing "N passed, N failed": most failures here are known
// gaps, not this run's verdict — the regressions are.
console.log(
  `controller-runtime's suites: ${total.passed} of ${total.passed + total.failed} specs pass (${total.skipped} skipped); ${regressions.length} regressions of the ${known.size} specs known to pass`,
);
process.exit(regressions.length || (total.passed === 0 && !values.focus) ? 1 : 0);
