/** Shared set-up for runtime tests: a fake cluster on a virtual clock with the WebApp CRD. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { loadManifests } from '../../src/cluster/manifests';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { VirtualClock } from '../../src/util/clock';
import { Manager, type ManagerOptions } from '../../src/runtime/manager';
import type { ReconcileTrace } from '../../src/runtime/trace';

export const ROOT = join(__dirname, '..', '..');
export const WEBAPP = { apiVersion: 'apps.example.com/v1', kind: 'WebApp' };
export const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

/**
 * What a test started, released when it ends whether it passed or failed, the last started first
 * (as Go's t.Cleanup): a failed assertion must not leave a manager, cluster, worker thread, child
 * process or temp dir behind to keep the run alive or disturb the next test. A helper that starts
 * and ends its resources inside one call uses a Releases of its own with try/finally.
 */
export class Releases {
  private readonly stack: Array<() => unknown> = [];

  add(release: () => unknown): void {
    this.stack.push(release);
  }

  /** Runs every release (each even if one before it threw), then reports what failed. */
  async releaseAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const release of this.stack.splice(0).reverse()) {
      try {
        await release();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1)
      throw new AggregateError(errors, 'releasing what the test started failed');
  }
}

const byTest = new WeakMap<TestContext, Releases>();

/** The Releases of test `t`, released after it (`t.after`), created on first use. */
export function releasesOf(owner: TestContext | Releases): Releases {
  if (owner instanceof Releases) return owner;
  let r = byTest.get(owner);
  if (!r) {
    const created = new Releases();
    owner.after(() => created.releaseAll());
    byTest.set(owner, created);
    r = created;
  }
  return r;
}

/** Releases `release` when `owner` (a test, or a helper's own Releases) ends. */
export function cleanup(owner: TestContext | Releases, release: () => unknown): void {
  releasesOf(owner).add(release);
}

/** A fresh temp dir, removed with what it holds when `owner` ends. */
export function tempDir(owner: TestContext | Releases, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retried: a process the test started (go's telemetry, say) may still be writing below it.
  cleanup(owner, () =>
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
  );
  return dir;
}

export interface Env {
  clock: VirtualClock;
  cluster: Cluster;
  mgr: Manager;
}

/** A cluster and a manager, both released when `owner` ends (see Releases). */
export async function env(
  owner: TestContext | Releases,
  opts: Partial<ManagerOptions> = {},
  clusterControllers = false,
): Promise<Env> {
  const clock = new VirtualClock();
  const cluster = createCluster({ clock, controllers: clusterControllers });
  cleanup(owner, () => cluster.close());
  const res = loadManifests(cluster, [
    join(ROOT, 'samples/quota-operator/config/crd/bases/apps.example.com_webapps.yaml'),
  ]);
  if (res.errors.length) throw new Error(JSON.stringify(res.errors));
  await clock.advance(0);
  const mgr = new Manager({ api: cluster, ...opts });
  cleanup(owner, () => mgr.stop());
  return { clock, cluster, mgr };
}

export function webapp(
  name: string,
  replicas = 1,
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name, namespace: 'default' },
    spec: { image: 'nginx', replicas },
    ...extra,
  };
}

export function configMap(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data };
}

/**
 * A finished reconcile of `key` at clock time `at`, for the hot-loop counts: `self`, triggered by
 * its own write and writing again (an update of a ConfigMap); otherwise triggered from outside,
 * writing nothing.
 */
export function finishedReconcile(key: string, id: number, self: boolean, at = 0): ReconcileTrace {
  return {
    id,
    reconcileID: String(id),
    controller: 'c',
    request: { namespace: 'default', name: key },
    key,
    worker: 1,
    triggers: [{ at, kind: 'event', selfTriggered: self }],
    start: at,
    phases: [],
    calls: self
      ? [
          {
            verb: 'update',
            resource: 'configmaps',
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: 'default',
            name: key,
            subresource: '',
            code: 200,
            source: 'server',
            at,
          },
        ]
      : [],
    warnings: [],
  };
}

/** A reconcile of default/blog by the `webapp` controller, started at 0, with `over` on top. */
export function blogReconcile(over: Partial<ReconcileTrace> = {}): ReconcileTrace {
  return {
    id: 1,
    reconcileID: 'r1',
    controller: 'webapp',
    request: { namespace: 'default', name: 'blog' },
    key: 'default/blog',
    worker: 0,
    triggers: [],
    start: 0,
    phases: [],
    calls: [],
    warnings: [],
    ...over,
  };
}
