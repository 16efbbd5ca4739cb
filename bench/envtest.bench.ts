/**
 * Start-up of the fake cluster as envtest's control plane: the time from spawning
 * `reconcile-studio test -- CMD` to CMD's first answered request (`GET namespaces/default`, what
 * envtest's Start() polls first), as a ratio against the floor of the same run — spawning Node and
 * answering one request from a bare loopback node:http server. Published envtest start-ups (etcd +
 * kube-apiserver) are 4–15 s. Uses the built CLI (dist/cli.js; built first when missing).
 * Run: node --import tsx bench/envtest.bench.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const RUNS = 5;

/** The command envtest would be: reads KUBECONFIG, polls namespaces/default, prints when answered. */
const PROBE = `
  const fs = require('node:fs');
  const https = require('node:https');
  const kc = fs.readFileSync(process.env.KUBECONFIG, 'utf8');
  const server = /server: (\\S+)/.exec(kc)[1];
  const token = /token: (\\S+)/.exec(kc)[1];
  const ca = Buffer.from(/certificate-authority-data: (\\S+)/.exec(kc)[1], 'base64');
  const poll = () => https.get(server + '/api/v1/namespaces/default',
    { ca, headers: { authorization: 'Bearer ' + token } }, (res) => {
      res.resume();
      if (res.statusCode === 200) console.log('answered ' + Date.now());
      else setTimeout(poll, 50);
    }).on('error', () => setTimeout(poll, 50));
  poll();`;

/** The floor: Node starts, a bare loopback HTTP server answers once. */
const FLOOR = `
  const http = require('node:http');
  const s = http.createServer((req, res) => res.end('{}'));
  s.listen(0, '127.0.0.1', () => {
    http.get({ host: '127.0.0.1', port: s.address().port }, (res) => {
      res.resume();
      console.log('answered ' + Date.now());
      s.close();
    });
  });`;

function measure(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const m = /answered (\d+)/.exec(out);
      if (code !== 0 || !m) reject(new Error(`exited with ${code}: ${out}`));
      else resolve(Number(m[1]) - start);
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')]);
  const floor: number[] = [];
  const cluster: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternated, so that load from other processes hits both alike.
    floor.push(await measure(['-e', FLOOR]));
    cluster.push(await measure([CLI, 'test', '--', process.execPath, '-e', PROBE]));
  }
  const f = median(floor);
  const c = median(cluster);
  const row = (label: string, value: string, note: string) =>
    console.log(`${label.padEnd(48)} ${value.padStart(10)}  ${note}`);
  row('floor: node start-up + one HTTP answer', `${f} ms`, `(median of ${RUNS})`);
  row('reconcile-studio test: spawn to first answer', `${c} ms`, `(median of ${RUNS})`);
  row('ratio to the floor', `${(c / f).toFixed(1)}x`, '(published envtest start-ups: 4–15 s)');
}

void main();
