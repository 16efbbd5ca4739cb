/**
 * The Go debugger's integration tests share this: the sample's manager under Delve (`dlv dap`)
 * against a served cluster holding only the blog WebApp, as its own user, reading the cluster's
 * audit record.
 */
import { join } from 'node:path';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { writeKubeconfigFile } from '../../src/cluster/auth/kubeconfig';
import { loadManifests } from '../../src/cluster/manifests';
import type { ServerHandle } from '../../src/cluster/endpoints/server';
import { findReconcileSymbols } from '../../src/runtime/godebug/reconcilers';
import { GoDebugSession } from '../../src/runtime/godebug/session';
import { controllerRuntimeOf, resolvePhaseSymbols } from '../../src/runtime/godebug/symbols';
import { freePort } from '../../src/runtime/goprocess';
import { ROOT } from './serve';

export const SAMPLE = join(ROOT, 'samples', 'quota-operator');
export const USER = 'go-operator';

/** A cluster with the WebApp CRD and only blog: its first reconcile is the one stepped through. */
export function blogCluster(podReadyDelayMs: number): Cluster {
  const cluster = createCluster({ podReadyDelayMs });
  loadManifests(cluster, [
    join(SAMPLE, 'config/crd/bases'),
    join(SAMPLE, 'config/samples/apps_v1_webapp_blog.yaml'),
  ]);
  return cluster;
}

/** A session of the sample's manager against `server` (which knows USER), not started yet. */
export async function sampleSession(
  dlv: string,
  server: ServerHandle,
  dir: string,
): Promise<GoDebugSession> {
  const cr = await controllerRuntimeOf(SAMPLE);
  const kubeconfig = join(dir, `${USER}.kubeconfig`);
  writeKubeconfigFile(kubeconfig, server.kubeconfig(USER, USER));
  return new GoDebugSession({
    dlv,
    moduleDir: SAMPLE,
    kubeconfig,
    metricsPort: await freePort(),
    symbols: resolvePhaseSymbols(cr.version, cr.dir),
    reconcilers: await findReconcileSymbols(SAMPLE),
    audit: server.audit,
    user: USER,
  });
}
