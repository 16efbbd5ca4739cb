/**
 * Durability and memory benchmarks of the served cluster, each a ratio against a floor measured in
 * the same run:
 *   - creates/s over HTTPS (16 in flight) with `--state` (every answer waits for its write-ahead
 *     log record to be fsynced) against the same server without a state file
 *   - resident memory of the server after 150 updates of a 2.9 MiB object, against the same
 *     server before them (the watch window is bounded by bytes as well as count)
 *   - resident memory of the server after 20,000 updates spread over 1,000 objects, printed every
 *     5,000 writes so flatness once the watch window is full shows, against the idle server
 * The servers run in child processes, as `serve` does. Loopback only, bounded loops.
 * Run: node --expose-gc --import tsx bench/durability.bench.ts
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../src/cluster/builtins';
import { startServer } from '../src/cluster/endpoints/server';
import { persist } from '../src/cluster/storage/state';
import { lineReader } from './lines';

function line(name: string, ours: string, floor: string, ratio: number, goal: string): void {
  console.log(
    `${name.padEnd(44)} ${ours.padStart(14)}  floor ${floor.padStart(14)}  ratio ${ratio.toFixed(2)}x  (goal ${goal})`,
  );
}

const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString('en-US')}/s`;
const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;

/** Child mode: a served cluster (with a state file when given a folder); answers `rss` on stdin. */
async function serveChild(stateDir: string | undefined): Promise<void> {
  const cluster = createCluster({ controllers: false });
  const persistence = stateDir ? await persist(cluster, join(stateDir, 'state.json')) : undefined;
  const server = await startServer({ cluster });
  console.log(JSON.stringify({ url: server.url, ca: server.caPem, token: server.token }));
  process.stdin.on('data', () => {
    globalThis.gc?.();
    console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
  });
  process.stdin.on('end', () => {
    void server
      .close()
      .then(() => persistence?.close())
      .then(() => process.exit(0));
  });
}

interface Child {
  call(method: string, path: string, body?: string): Promise<number>;
  rss(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(stateDir?: string): Promise<Child> {
  const p: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', __filename, '--serve', ...(stateDir ? [stateDir] : [])],
    { stdio: 'pipe' },
  );
  p.stderr.pipe(process.stderr);
  const next = lineReader(p.stdout);
  const info = JSON.parse(await next()) as { url: string; ca: string; token: string };
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca: info.ca });
  return {
    call: (method, path, body) =>
      new Promise((res, rej) => {
        const req = request(
          `${info.url}${path}`,
          {
            method,
            agent,
            headers: {
              Authorization: `Bearer ${info.token}`,
              ...(body ? { 'Content-Type': 'application/json' } : {}),
            },
          },
          (r) => {
            r.resume();
            r.on('end', () => res(r.statusCode ?? 0));
          },
        );
        req.on('error', rej);
        req.end(body);
      }),
    rss: async () => {
      p.stdin.write('rss\n');
      return (JSON.parse(await next()) as { rss: number }).rss;
    },
    stop: async () => {
      agent.destroy();
      const exited = new Promise((r) => p.once('exit', r));
      p.stdin.end();
      await exited;
    },
  };
}

async function inFlight(
  n: number,
  fn: (i: number) => Promise<number>,
  expect = 201,
): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const code = await fn(next++);
        if (code !== expect) throw new Error(`write answered ${code}, not ${expect}`);
      }
    }),
  );
  return performance.now() - t;
}

const cm = (i: number) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}` },
    data: { key: `value-${i}`, other: 'x'.repeat(32) },
  });

async function writeThroughput(): Promise<void> {
  const N = 4000;
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-state-'));
  try {
    const plain = await startChild();
    await inFlight(500, (i) => plain.call('POST', '/api/v1/namespaces/default/configmaps', cm(i)));
    const tPlain = await inFlight(N, (i) =>
      plain.call('POST', '/api/v1/namespaces/default/configmaps', cm(1000 + i)),
    );
    await plain.stop();
    const durable = await startChild(dir);
    await inFlight(500, (i) =>
      durable.call('POST', '/api/v1/namespaces/default/configmaps', cm(i)),
    );
    const tDurable = await inFlight(N, (i) =>
      durable.call('POST', '/api/v1/namespaces/default/configmaps', cm(1000 + i)),
    );
    await durable.stop();
    line(
      'HTTPS creates with --state (16 in flight)',
      rate(N, tDurable),
      rate(N, tPlain),
      tPlain / tDurable,
      '>= 0.5x',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bigObjectMemory(): Promise<void> {
  const s = await startChild();
  const big = 'x'.repeat(2.9 * 1024 * 1024);
  const body = (i: number) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { big, i: String(i) },
    });
  await s.call('POST', '/api/v1/namespaces/default/configmaps', body(0));
  const before = await s.rss();
  for (let i = 1; i <= 150; i++) {
    const code = await s.call('PUT', '/api/v1/namespaces/default/configmaps/big', body(i));
    if (code !== 200) throw new Error(`update answered ${code}`);
  }
  const after = await s.rss();
  await s.stop();
  line(
    'RSS after 150 updates of a 2.9 MiB object',
    mib(after),
    mib(before),
    after / before,
    '< 400 MiB',
  );
}

async function manyWritesMemory(): Promise<void> {
  const objects = 1000;
  const s = await startChild();
  const idle = await s.rss();
  const path = '/api/v1/namespaces/default/configmaps';
  await inFlight(objects, (i) => s.call('POST', path, cm(i)));
  // Unconditional updates (no resourceVersion in the body), each changing the data so every one is
  // a new revision in the watch window.
  const update = (i: number) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i % objects}` },
      data: { key: `value-${i}`, other: 'x'.repeat(32) },
    });
  let done = objects; // the creates are the first writes
  for (const at of [5000, 10000, 15000, 20000]) {
    const from = done;
    await inFlight(
      at - from,
      (i) => s.call('PUT', `${path}/cm-${(from + i) % objects}`, update(from + i)),
      200,
    );
    done = at;
    const rss = await s.rss();
    line(
      `RSS after ${at.toLocaleString('en-US')} writes to ${objects.toLocaleString('en-US')} objects`,
      mib(rss),
      mib(idle),
      rss / idle,
      '< 300 MiB, flat',
    );
  }
  await s.stop();
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--serve');
  if (i >= 0) return serveChild(process.argv[i + 1]);
  console.log(`durability and memory benchmarks (node ${process.version})`);
  await writeThroughput();
  await bigObjectMemory();
  await manyWritesMemory();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
