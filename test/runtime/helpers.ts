/** Shared set-up for runtime tests: a fake cluster on a virtual clock with the WebApp CRD. */
import { join } from 'node:path';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { loadManifests } from '../../src/cluster/manifests';
import type { KubeObject } from '../../src/cluster/types';
import { VirtualClock } from '../../src/util/clock';
import { Manager, type ManagerOptions } from '../../src/runtime/manager';

export const ROOT = join(__dirname, '..', '..');
export const WEBAPP = { apiVersion: 'apps.example.com/v1', kind: 'WebApp' };
export const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

export interface Env {
  clock: VirtualClock;
  cluster: Cluster;
  mgr: Manager;
  close(): Promise<void>;
}

export async function env(
  opts: Partial<ManagerOptions> = {},
  clusterControllers = false,
): Promise<Env> {
  const clock = new VirtualClock();
  const cluster = createCluster({ clock, controllers: clusterControllers });
  const res = loadManifests(cluster, [
    join(ROOT, 'samples/quota-operator/config/crd/bases/apps.example.com_webapps.yaml'),
  ]);
  if (res.errors.length) throw new Error(JSON.stringify(res.errors));
  await clock.advance(0);
  const mgr = new Manager({ api: cluster, ...opts });
  return {
    clock,
    cluster,
    mgr,
    close: async () => {
      await mgr.stop();
      cluster.close();
    },
  };
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
