/**
 * Recording proxy overhead: the median time of one request through the proxy against the same
 * request sent directly to the same cluster, measured in the same run, interleaved (one direct,
 * one proxied, …) over kept-alive connections, as a client-go or client-node process sends them.
 * The cluster is the reference kube-apiserver (scripts/realapi) when its binaries are built — a
 * real apiserver in a process of its own — else the embedded cluster served over HTTPS (in this
 * process: then the proxy and the cluster share one event loop, and the figure says so).
 * A bare pass-through (Node's https piping, no record, no credentials loaded) is measured in the
 * same interleave: the floor any Node proxy pays for the extra hop on this machine.
 * Issue 33's bar: at most 1 ms added per request (median).
 * Run: node --import tsx bench/proxy.bench.ts
 */
import { Agent, createServer, request, type Server } from 'node:https';
import { generateServingCerts } from '../src/cluster/auth/certs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBuilt, realapiDir } from '../scripts/realapi/build.mjs';
import { startControlPlane } from '../scripts/realapi/controlplane.mjs';
import { createCluster } from '../src/cluster/builtins';
import { startServer } from '../src/cluster/endpoints/server';
import { loadUpstream } from '../src/proxy/upstream';
import { startProxy } from '../src/proxy/server';

const ROUNDS = 400;
const WARMUP = 50;

interface Target {
  url: string;
  token: string;
  agent: Agent;
}

function send(t: Target, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const r = request(
      `${t.url}${path}`,
      {
        method,
        agent: t.agent,
        headers: {
          authorization: `Bearer ${t.token}`,
          accept: 'application/json',
          ...(body
            ? {
                'content-type':
                  method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
              }
            : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300)
            reject(new Error(`${method} ${path}: ${res.statusCode}`));
          else resolve(performance.now() - start);
        });
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** The floor: a pass-through that only pipes, with the cluster's token, over one kept-alive agent. */
async function barePassThrough(direct: Target): Promise<{ target: Target; server: Server }> {
  const certs = await generateServingCerts();
  const up = new URL(direct.url);
  const server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${direct.token}` };
    delete headers.host;
    delete headers.connection;
    const out = request(
      {
        hostname: up.hostname,
        port: up.port,
        method: req.method,
        path: req.url,
        headers,
        agent: direct.agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    target: {
      url: `https://127.0.0.1:${port}`,
      token: 'unused',
      agent: new Agent({ keepAlive: true, ca: certs.caPem }),
    },
    server,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-'));
  let stop: () => Promise<void>;
  let kubeconfig: string;
  let direct: Target;
  let cluster: string;
  if (isBuilt()) {
    const cp = await startControlPlane({ binDir: realapiDir(), dir, controllers: false });
    kubeconfig = cp.kubeconfig;
    direct = {
      url: cp.server,
      token: cp.token,
      agent: new Agent({ keepAlive: true, rejectUnauthorized: false }),
    };
    stop = cp.stop;
    cluster = 'the reference kube-apiserver';
  } else {
    const c = createCluster();
    const served = await startServer({ cluster: c });
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, served.kubeconfig());
    direct = {
      url: served.url,
      token: served.token,
      agent: new Agent({ keepAlive: true, ca: served.caPem }),
    };
    stop = async () => {
      await served.close();
      c.close();
    };
    cluster = 'the embedded cluster in this process (reference binaries not built)';
  }
  const proxy = await startProxy({ upstream: await loadUpstream({ kubeconfig }) });
  const proxied: Target = {
    url: proxy.url,
    token: proxy.token,
    agent: new Agent({ keepAlive: true, ca: proxy.caPem }),
  };
  const bare = await barePassThrough(direct);
  const ns = '/api/v1/namespaces/default/configmaps';
  for (let i = 0; i < 50; i++)
    await send(
      direct,
      'POST',
      ns,
      JSON.stringify({
        metadata: { name: `cm-${i}` },
        data: { i: String(i), pad: 'x'.repeat(200) },
      }),
    );
  const cases: Array<[string, string, string, (i: number) => string | undefined]> = [
    ['get one ConfigMap', 'GET', `${ns}/cm-0`, () => undefined],
    ['list 50 ConfigMaps', 'GET', ns, () => undefined],
    ['patch a ConfigMap', 'PATCH', `${ns}/cm-1`, (i) => JSON.stringify({ data: { n: String(i) } })],
  ];
  console.log(`cluster: ${cluster}; ${ROUNDS} requests each way, interleaved, medians`);
  for (const [name, method, path, body] of cases) {
    const d: number[] = [];
    const f: number[] = [];
    const p: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const td = await send(direct, method, path, body(i));
      const tf = await send(bare.target, method, path, body(i));
      const tp = await send(proxied, method, path, body(i));
      if (i >= WARMUP) {
        d.push(td);
        f.push(tf);
        p.push(tp);
      }
    }
    const [md, mf, mp] = [median(d), median(f), median(p)];
    console.log(
      `${name.padEnd(20)} direct ${md.toFixed(3)} ms  proxied ${mp.toFixed(3)} ms  ` +
        `+${(mp - md).toFixed(3)} ms (${(mp / md).toFixed(2)}x)  ` +
        `bare pass-through +${(mf - md).toFixed(3)} ms: the recording proxy's own +${(mp - mf).toFixed(3)} ms`,
    );
  }
  console.log(`recorded ${proxy.audit.events().length} events`);
  await proxy.close();
  bare.server.close();
  for (const a of [direct.agent, proxied.agent, bare.target.agent]) a.destroy();
  await stop();
  rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
