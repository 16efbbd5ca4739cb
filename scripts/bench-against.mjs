// `node scripts/bench-against.mjs <commit> [rounds]`: served GET and create throughput of this
// tree against an earlier commit's, measured in the same run. Each tree's fake-cluster bench
// server (bench/cluster.bench.ts --serve) is bundled with esbuild, as the CLI and the extension
// ship it, and runs in its own process; one client process sends both the same requests over
// HTTPS, 16 in flight, the two servers taking turns round by round so that a busy machine slows
// both alike. Printed per round: requests per second and the server process's CPU time per
// request (from /proc, less sensitive to other load than throughput). Nothing here asserts.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, cpSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [commit, roundsArg] = process.argv.slice(2);
if (!commit) {
  console.error('usage: node scripts/bench-against.mjs <commit> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 6);
const GETS = 3000;
const CREATES = 3000;
const IN_FLIGHT = 16;

/** A worktree of `commit` beside this one's node_modules and generated data. */
function checkout() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-against-'));
  execFileSync('git', ['worktree', 'add', '--detach', '--quiet', dir, commit], { cwd: root });
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  // The generated API is data for one release; an older tree regenerates what its own
  // generators stamp differently (scripts/generate.mjs), a tree from before it needs none.
  if (existsSync(join(dir, 'scripts', 'generate.mjs'))) {
    cpSync(join(root, 'generated'), join(dir, 'generated'), { recursive: true });
    execFileSync(process.execPath, ['scripts/generate.mjs'], { cwd: dir, stdio: 'inherit' });
  }
  return dir;
}

/** The tree's bench server bundled into its dist/ (where the built extension finds generated/). */
async function bundle(tree) {
  const outfile = join(tree, 'dist', 'bench-cluster.cjs');
  await esbuild.build({
    entryPoints: [join(tree, 'bench', 'cluster.bench.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    outfile,
    logLevel: 'error',
  });
  return outfile;
}

/** CPU time (user + system) of a process so far, in microseconds. */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / 100;
}

function start(file) {
  const child = spawn(process.execPath, [file, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before serving`)));
    lines.once('line', (l) => resolve({ child, ...JSON.parse(l) }));
  });
}

function client({ url, ca, token }) {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca });
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const headers = { Authorization: `Bearer ${token}` };
      if (body) headers['Content-Type'] = 'application/json';
      const req = request(`${url}${path}`, { method, agent, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode < 300
            ? resolve()
            : reject(new Error(`${method} ${path}: ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
}

async function inFlight(n, fn) {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return performance.now() - t;
}

function configMap(i) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default', labels: { app: 'bench' } },
    data: { key: `value-${i}`, other: 'x'.repeat(32) },
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const base = checkout();
try {
  const trees = [
    { name: commit, file: await bundle(base) },
    { name: 'this tree', file: await bundle(root) },
  ];
  for (const t of trees) Object.assign(t, await start(t.file), { rows: [] });
  const path = '/api/v1/namespaces/default/configmaps/cm-0';
  let nextName = 100_000;
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of trees) {
      const call = client(t);
      await inFlight(300, () => call('GET', path));
      const c0 = cpuMicros(t.child.pid);
      const tGet = await inFlight(GETS, () => call('GET', path));
      const c1 = cpuMicros(t.child.pid);
      const first = nextName;
      nextName += CREATES;
      const tCreate = await inFlight(CREATES, (i) =>
        call('POST', '/api/v1/namespaces/default/configmaps', configMap(first + i)),
      );
      const c2 = cpuMicros(t.child.pid);
      t.rows.push({
        get: (GETS / tGet) * 1000,
        create: (CREATES / tCreate) * 1000,
        getCpu: (c1 - c0) / GETS,
        createCpu: (c2 - c1) / CREATES,
      });
    }
  }
  console.log(
    `served by esbuild bundles, ${IN_FLIGHT} in flight, ${ROUNDS} rounds (first is warm-up)`,
  );
  for (const t of trees) {
    const rows = t.rows.slice(1);
    const f = (k) => Math.round(median(rows.map((r) => r[k])));
    console.log(
      `${t.name.padEnd(12)} GET ${String(f('get')).padStart(6)}/s (${f('getCpu')} µs CPU)` +
        `  create ${String(f('create')).padStart(6)}/s (${f('createCpu')} µs CPU)`,
    );
  }
  const [a, b] = trees.map((t) => t.rows.slice(1));
  const ratio = (k) => (median(b.map((r) => r[k])) / median(a.map((r) => r[k]))).toFixed(2);
  console.log(`this tree / ${commit}: GET ${ratio('get')}x, create ${ratio('create')}x (medians)`);
  for (const t of trees) t.child.kill();
} finally {
  execFileSync('git', ['worktree', 'remove', '--force', base], { cwd: root });
  rmSync(base, { recursive: true, force: true });
}
