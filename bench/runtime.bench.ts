// Runtime benchmarks: work-queue cycles against an array+Set floor, and 10,000 CRs each reconciled
// once (Get, create a child, status update) on the virtual clock against the same API calls made
// directly on the fake cluster. Prints ratios against the floors and absolute figures.
import { join } from 'node:path';
import { createCluster } from '../src/cluster/builtins';
import type { Cluster } from '../src/cluster/cluster';
import { loadManifests } from '../src/cluster/manifests';
import type { KubeObject } from '../src/cluster/types';
import { VirtualClock } from '../src/util/clock';
import { Manager } from '../src/runtime/manager';
import { newControllerManagedBy } from '../src/runtime/builder';
import { GenerationChangedPredicate } from '../src/runtime/predicate';
import { WorkQueue } from '../src/runtime/workqueue';
import { Registry, WorkqueueMetrics } from '../src/runtime/metrics';

const ROOT = join(__dirname, '..');
const WEBAPP = { apiVersion: 'apps.example.com/v1', kind: 'WebApp' };
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function rate(n: number, ms: number): string {
  return `${(((n / ms) * 1000) / 1e6).toFixed(2)}M/s`;
}

function queueBench(): void {
  const N = 1_000_000;
  const keys = Array.from({ length: 1000 }, (_, i) => `default/item-${i}`);
  const clock = new VirtualClock();

  // floor: an array used as a FIFO plus a Set for dedupe — the least a queue must do
  const floor = () => {
    const arr: string[] = [];
    let head = 0;
    const set = new Set<string>();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const k = keys[i % keys.length];
      if (!set.has(k)) {
        set.add(k);
        arr.push(k);
      }
      const got = arr[head++];
      set.delete(got);
      if (head > 1024) {
        arr.splice(0, head);
        head = 0;
      }
    }
    return performance.now() - t0;
  };
  const cycles = (metrics: boolean) => {
    const q = new WorkQueue<string>({
      clock,
      name: 'bench',
      ...(metrics ? { metrics: new WorkqueueMetrics(new Registry()) } : {}),
    });
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const k = keys[i % keys.length];
      q.add(k);
      const got = q.tryGet()!;
      q.done(got);
    }
    return performance.now() - t0;
  };
  floor();
  cycles(false); // warm up
  const f = Math.min(floor(), floor(), floor());
  const plain = Math.min(cycles(false), cycles(false), cycles(false));
  const withMetrics = Math.min(cycles(true), cycles(true));
  console.log(
    `queue add/get/done: ${rate(N, plain)} (${(plain / f).toFixed(2)}x the array+Set floor at ${rate(N, f)})`,
  );
  console.log(
    `queue add/get/done with workqueue metrics: ${rate(N, withMetrics)} (${(withMetrics / f).toFixed(2)}x floor)`,
  );
}

function webapp(i: number): KubeObject {
  return {
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: `app-${i}`, namespace: 'default' },
    spec: { image: 'nginx', replicas: 1 },
  };
}

function child(app: KubeObject): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: app.metadata.name,
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: app.apiVersion,
          kind: app.kind,
          name: app.metadata.name!,
          uid: app.metadata.uid!,
          controller: true,
        },
      ],
    },
    data: { image: 'nginx' },
  };
}

async function newCluster(n: number): Promise<{ clock: VirtualClock; cluster: Cluster }> {
  const clock = new VirtualClock();
  const cluster = createCluster({ clock, controllers: false });
  loadManifests(cluster, [
    join(ROOT, 'samples/quota-operator/config/crd/bases/apps.example.com_webapps.yaml'),
  ]);
  await clock.advance(0);
  for (let i = 0; i < n; i++) cluster.create(webapp(i));
  await clock.advance(0);
  return { clock, cluster };
}

async function reconcileBench(recordObjects: boolean): Promise<void> {
  const N = 10_000;
  let floorMs = 0;
  // floor: the same calls straight on the cluster (server reads, no queue, no cache, no trace)
  {
    const { cluster } = await newCluster(N);
    gc();
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      const app = cluster.get(WEBAPP, { namespace: 'default', name: `app-${i}` });
      cluster.create(child(app));
      cluster.update(
        { ...app, status: { phase: 'Running', observedGeneration: 1 } },
        { subresource: 'status' },
      );
    }
    floorMs = performance.now() - t0;
    cluster.close();
  }
  const { clock, cluster } = await newCluster(N);
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const mgr = new Manager({ api: cluster, stepper: false, maxTraces: 1000, recordObjects });
  let done = 0;
  newControllerManagedBy(mgr)
    .for(WEBAPP, { predicates: [GenerationChangedPredicate] })
    .complete(async (ctx, req) => {
      const app = await ctx.client.get(WEBAPP, req);
      await ctx.client.create(child(app));
      app.status = { phase: 'Running', observedGeneration: app.metadata.generation };
      await ctx.client.status().update(app);
      if (++done % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      return {};
    });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  mgr.start();
  await clock.advance(0);
  const ms = performance.now() - t0;
  // CPU time as well: wall time swings with whatever else the machine runs.
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const traces = mgr.controllers[0].metrics.reconcileTotal.get({
    controller: 'webapp',
    result: 'success',
  });
  console.log(
    `10,000 CRs reconciled once (Get, create child, status update; ${recordObjects ? 'traces keep object copies' : 'traces keep diffs only'}): ${Math.round(ms)} ms wall (${Math.round(cpuMs)} ms CPU), ${traces} reconciles, ` +
      `${(ms / floorMs).toFixed(1)}x the same API calls made directly (${Math.round(floorMs)} ms); ` +
      `peak heap +${Math.round((peak - heap0) / 1024 / 1024)} MB over the loaded cluster, rss ${Math.round(process.memoryUsage().rss / 1024 / 1024)} MB`,
  );
  await mgr.stop();
  cluster.close();
}

async function main(): Promise<void> {
  if (!process.argv.includes('--reconcile-only')) queueBench();
  await reconcileBench(true);
  await reconcileBench(false);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
