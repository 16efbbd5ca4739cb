/**
 * Fake-cluster benchmarks, each printed as a ratio against a floor measured in the same run:
 *   - in-process get/create/update/list vs structuredClone + Map
 *   - custom resource updates checked by x-kubernetes-validations CEL rules vs the CRD without them
 *   - HTTPS GET of one object vs a bare node:https server returning the same bytes
 *   - creates/s over HTTPS with 16 in flight
 *   - LIST of 5,000 custom resources (in-process and over HTTPS)
 *   - resident memory with 5,000 and 100,000 small objects (each in a fresh child process)
 *   - start-up to first answer
 * Bounded loops, loopback only. Run: node --import tsx bench/cluster.bench.ts
 */
import { spawn } from 'node:child_process';
import { Agent, createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createCluster } from '../src/cluster/builtins';
import { generateServingCerts } from '../src/cluster/auth/certs';
import { startServer } from '../src/cluster/endpoints/server';
import type { KubeObject } from '../src/cluster/apimachinery/types';
import { lineReader } from './lines';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

function cm(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'default', labels: { app: 'bench' } },
    data: { key: `value-${i}`, other: 'x'.repeat(32) },
  };
}

function rate(n: number, ms: number): string {
  return `${Math.round((n / ms) * 1000).toLocaleString('en-US')}/s`;
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

function line(name: string, ours: string, floor: string, ratio: number, goal?: string): void {
  console.log(
    `${name.padEnd(44)} ${ours.padStart(14)}  floor ${floor.padStart(14)}  ratio ${ratio.toFixed(2)}x${goal ? `  (goal ${goal})` : ''}`,
  );
}

function storeOps(): void {
  const N = 20_000;
  const cluster = createCluster({ controllers: false });
  const map = new Map<string, KubeObject>();
  // create
  const tCreate = time(() => {
    for (let i = 0; i < N; i++) cluster.create(cm(i));
  });
  const fCreate = time(() => {
    for (let i = 0; i < N; i++) {
      const o = structuredClone(cm(i));
      map.set(`default/${o.metadata.name}`, o);
      structuredClone(o);
    }
  });
  line('create (in-process)', rate(N, tCreate), rate(N, fCreate), fCreate / tCreate);
  // get
  const tGet = time(() => {
    for (let i = 0; i < N; i++) cluster.get(CM, { namespace: 'default', name: `cm-${i}` });
  });
  const fGet = time(() => {
    for (let i = 0; i < N; i++) structuredClone(map.get(`default/cm-${i}`));
  });
  line('get (in-process)', rate(N, tGet), rate(N, fGet), fGet / tGet);
  // update
  const objs = Array.from({ length: N }, (_, i) =>
    cluster.get(CM, { namespace: 'default', name: `cm-${i}` }),
  );
  const tUpdate = time(() => {
    for (const o of objs) {
      (o.data as Record<string, string>).key = 'changed';
      cluster.update(o);
    }
  });
  const fUpdate = time(() => {
    for (const o of objs) {
      const c = structuredClone(o);
      map.set(`default/${c.metadata.name}`, c);
      structuredClone(c);
    }
  });
  line('update (in-process)', rate(N, tUpdate), rate(N, fUpdate), fUpdate / tUpdate);
  // list of everything
  const tList = time(() => cluster.list(CM, { namespace: 'default' }));
  const fList = time(() => [...map.values()].map((o) => structuredClone(o)));
  line(`list ${N} (in-process)`, `${tList.toFixed(1)} ms`, `${fList.toFixed(1)} ms`, fList / tList);
  cluster.close();
}

interface Http {
  get(path: string): Promise<Buffer>;
  post(path: string, body: string): Promise<number>;
}

function client(url: string, ca: string, token: string): Http {
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca });
  const call = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: Buffer }>((res, rej) => {
      const req = request(
        `${url}${path}`,
        {
          method,
          agent,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body ? { 'Content-Type': 'application/json' } : {}),
          },
        },
        (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks) }));
        },
      );
      req.on('error', rej);
      req.end(body);
    });
  return {
    get: async (p) => (await call('GET', p)).body,
    post: async (p, b) => (await call('POST', p, b)).status,
  };
}

async function inFlight(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
  return performance.now() - t;
}

/** A namespaced example.com/v1 CRD whose schema is `spec` (the bench kinds differ only there). */
function exampleCrd(kind: string, spec: Record<string, unknown>): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
}

/** Child mode: the served cluster and the bare floor server, in their own process like a real apiserver. */
async function serveChild(): Promise<void> {
  const certs = await generateServingCerts();
  const cluster = createCluster({ controllers: false });
  cluster.create(cm(0));
  cluster.create(
    exampleCrd('Widget', {
      type: 'object',
      properties: { size: { type: 'integer' }, owner: { type: 'string' } },
    }),
  );
  for (let i = 0; i < 5000; i++)
    cluster.create({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: `w-${i}`, namespace: 'default' },
      spec: { size: i, owner: 'bench' },
    });
  const server = await startServer({ cluster, certs });
  const bytes = Buffer.from(cluster.getJSON(CM, { namespace: 'default', name: 'cm-0' }));
  const bare = createServer(
    { key: certs.keyPem, cert: certs.certPem, keepAlive: true },
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
      res.end(bytes);
    },
  );
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', () => r()));
  console.log(
    JSON.stringify({
      url: server.url,
      bare: `https://127.0.0.1:${(bare.address() as AddressInfo).port}`,
      ca: server.caPem,
      token: server.token,
    }),
  );
  const W = { apiVersion: 'example.com/v1', kind: 'Widget' };
  process.stdin.on('data', () => {
    // The parent asks for the in-process LIST figures, measured here where the store lives.
    const tListIn = time(() => cluster.list(W, { namespace: 'default' }));
    const fJson = time(() => JSON.stringify(cluster.list(W, { namespace: 'default' })));
    console.log(JSON.stringify({ tListIn, fJson }));
  });
  process.stdin.on('end', () => process.exit(0));
}

async function https(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const nextLine = lineReader(child.stdout);
  const info = JSON.parse(await nextLine()) as {
    url: string;
    bare: string;
    ca: string;
    token: string;
  };
  const http = client(info.url, info.ca, info.token);
  const bareHttp = client(info.bare, info.ca, info.token);
  const path = '/api/v1/namespaces/default/configmaps/cm-0';
  const N = 6000;
  await inFlight(500, 16, () => http.get(path));
  await inFlight(500, 16, () => bareHttp.get(path));
  const tOurs = await inFlight(N, 16, () => http.get(path));
  const tBare = await inFlight(N, 16, () => bareHttp.get(path));
  line(
    'HTTPS GET one object (16 in flight)',
    rate(N, tOurs),
    rate(N, tBare),
    tBare / tOurs,
    '>= 0.5x',
  );
  const C = 6000;
  const tCreates = await inFlight(C, 16, (i) =>
    http.post('/api/v1/namespaces/default/configmaps', JSON.stringify(cm(100_000 + i))),
  );
  line(
    'HTTPS creates (16 in flight)',
    rate(C, tCreates),
    rate(N, tBare),
    tBare / N / (tCreates / C),
    '>= 2,000/s',
  );
  let listBytes = 0;
  const tListHttp = await inFlight(
    1,
    1,
    async () =>
      (listBytes = (await http.get('/apis/example.com/v1/namespaces/default/widgets')).length),
  );
  child.stdin.write('list\n');
  const { tListIn, fJson } = JSON.parse(await nextLine()) as { tListIn: number; fJson: number };
  line(
    'LIST 5,000 CRs in-process',
    `${tListIn.toFixed(1)} ms`,
    `${fJson.toFixed(1)} ms`,
    fJson / tListIn,
    '<= 250 ms',
  );
  line(
    `LIST 5,000 CRs over HTTPS (${(listBytes / 1e6).toFixed(1)} MB)`,
    `${tListHttp.toFixed(1)} ms`,
    `${fJson.toFixed(1)} ms`,
    fJson / tListHttp,
    '<= 250 ms',
  );
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
}

/** Child mode: fill a cluster with N objects and print the resident set size. */
function rssChild(n: number): void {
  const before = process.memoryUsage().rss;
  const cluster = createCluster({ controllers: false });
  for (let i = 0; i < n; i++) cluster.create(cm(i));
  globalThis.gc?.();
  console.log(JSON.stringify({ rss: process.memoryUsage().rss, baseline: before }));
  cluster.close();
}

function runChild(args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => (code === 0 ? res(out) : rej(new Error(`child exited ${code}`))));
  });
}

async function memory(): Promise<void> {
  const floor = JSON.parse(await runChild(['--rss', '0'])) as { rss: number };
  for (const [n, goal] of [
    [5000, '<= 400 MiB'],
    [100_000, '<= 1 GiB'],
  ] as const) {
    const r = JSON.parse(await runChild(['--rss', String(n)])) as { rss: number };
    const mib = r.rss / 1024 / 1024;
    line(
      `RSS with ${n.toLocaleString('en-US')} objects`,
      `${mib.toFixed(0)} MiB`,
      `${(floor.rss / 1024 / 1024).toFixed(0)} MiB`,
      r.rss / floor.rss,
      goal,
    );
  }
}

/** A CRD with kubebuilder-style CEL rules on the spec, a list's items and a map's values (or none). */
function gadgetCrd(withRules: boolean): KubeObject {
  const rules = (...r: Array<Record<string, string>>) =>
    withRules ? { 'x-kubernetes-validations': r } : {};
  return exampleCrd('Gadget', {
    type: 'object',
    ...rules({ rule: 'self.min <= self.max', message: 'min above max' }),
    properties: {
      min: { type: 'integer' },
      max: { type: 'integer' },
      generation: { type: 'integer' },
      region: { type: 'string', ...rules({ rule: 'self == oldSelf' }) },
      ports: {
        type: 'array',
        items: {
          type: 'object',
          ...rules({ rule: "self.port > 1024 && self.name.startsWith('p')" }),
          properties: { name: { type: 'string' }, port: { type: 'integer' } },
        },
      },
      labels: {
        type: 'object',
        additionalProperties: {
          type: 'string',
          ...rules({ rule: 'self.size() <= 63' }),
        },
      },
    },
  });
}

/** Updates of one custom resource, CEL rules checked on each, against the same CRD without rules. */
function celWrites(): void {
  const N = 5000;
  const GADGET = { apiVersion: 'example.com/v1', kind: 'Gadget' };
  const run = (withRules: boolean): number => {
    const cluster = createCluster({ controllers: false });
    cluster.create(gadgetCrd(withRules));
    const ports = Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, port: 8000 + i }));
    let cur = cluster.create({
      ...GADGET,
      metadata: { name: 'g', namespace: 'default' },
      spec: { min: 1, max: 3, generation: 0, region: 'eu', ports, labels: { app: 'bench' } },
    });
    const ms = time(() => {
      for (let i = 1; i <= N; i++)
        cur = cluster.update({ ...cur, spec: { ...(cur.spec as object), generation: i } });
    });
    cluster.close();
    return ms;
  };
  // Alternating rounds, best of each: the first rounds also warm the JIT and the CEL planner.
  let plain = Infinity;
  let checked = Infinity;
  for (let round = 0; round < 3; round++) {
    plain = Math.min(plain, run(false));
    checked = Math.min(checked, run(true));
  }
  line(
    'CR update with 4 CEL rules (11 evaluations)',
    rate(N, checked),
    rate(N, plain),
    checked / plain,
  );
}

async function startup(): Promise<void> {
  // In-process: a fresh cluster, certificates, listen, first HTTPS answer.
  const t = performance.now();
  const cluster = createCluster();
  const server = await startServer({ cluster });
  const http = client(server.url, server.caPem, server.token);
  await http.get('/version');
  const inProc = performance.now() - t;
  await server.close();
  cluster.close();
  // The CLI from the sources (tsx compiles on the fly, so this is an upper bound).
  const t2 = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '..', 'src', 'cli', 'main.ts'), 'serve'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((res) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Kubeconfig:')) res();
    });
  });
  const cli = performance.now() - t2;
  child.kill('SIGTERM');
  console.log(
    `${'start-up to first answer (in-process)'.padEnd(44)} ${`${inProc.toFixed(0)} ms`.padStart(14)}  (goal <= 300 ms)`,
  );
  console.log(
    `${'start-up of serve via tsx (to kubeconfig)'.padEnd(44)} ${`${cli.toFixed(0)} ms`.padStart(14)}  (includes on-the-fly TypeScript compile)`,
  );
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--rss');
  if (i >= 0) return rssChild(Number(process.argv[i + 1]));
  if (process.argv.includes('--serve')) return serveChild();
  console.log(`fake cluster benchmarks (node ${process.version})`);
  storeOps();
  celWrites();
  await https();
  await memory();
  await startup();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
