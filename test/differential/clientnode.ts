/**
 * Scenarios driven by @kubernetes/client-node, as a TypeScript operator drives a cluster: typed
 * calls, its error type, its informer. Each records what the client saw; the runner compares the
 * records of both clusters as it compares HTTP answers.
 */
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Side } from './clusters';
import type { Observation, Run } from './execute';

export interface ClientScenario {
  name: string;
  run(side: Side, ns: string): Promise<Run>;
}

function config(side: Side): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(side.kubeconfig);
  return kc;
}

/** Runs the calls in order; a call's result or its ApiException's code and body is one observation. */
async function record(calls: (() => Promise<unknown>)[]): Promise<Run> {
  const run: Run = { observations: [], seen: [] };
  for (const call of calls) {
    let obs: Observation;
    try {
      obs = { body: JSON.parse(JSON.stringify((await call()) ?? null)) };
    } catch (err) {
      const e = err as { code?: number; body?: unknown; message?: string };
      let body = e.body;
      if (typeof body === 'string') {
        try {
          body = JSON.parse(body);
        } catch {
          // kept as text
        }
      }
      obs = e.code !== undefined ? { status: e.code, body } : { body: `error: ${e.message}` };
    }
    run.seen.push(obs.body);
    run.observations.push(obs);
  }
  return run;
}

const cm = (ns: string, name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});

export const clientScenarios: ClientScenario[] = [
  {
    name: 'client-node/configmap-crud',
    run: (side, ns) => {
      const core = config(side).makeApiClient(CoreV1Api);
      return record([
        () => core.createNamespacedConfigMap({ namespace: ns, body: cm(ns, 'a', { k: 'v' }) }),
        () => core.readNamespacedConfigMap({ namespace: ns, name: 'a' }),
        () =>
          core.replaceNamespacedConfigMap({
            namespace: ns,
            name: 'a',
            body: cm(ns, 'a', { k: 'w' }),
          }),
        () =>
          core.patchNamespacedConfigMap(
            { namespace: ns, name: 'a', body: { data: { p: '1' } } },
            setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
          ),
        () => core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=a' }),
        () => core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' }),
        () => core.readNamespacedConfigMap({ namespace: ns, name: 'a' }),
      ]);
    },
  },
  {
    name: 'client-node/create-conflict-and-invalid',
    run: (side, ns) => {
      const core = config(side).makeApiClient(CoreV1Api);
      return record([
        () => core.createNamespacedConfigMap({ namespace: ns, body: cm(ns, 'dup', {}) }),
        () => core.createNamespacedConfigMap({ namespace: ns, body: cm(ns, 'dup', {}) }),
        () => core.createNamespacedConfigMap({ namespace: ns, body: cm(ns, 'Bad_Name', {}) }),
        () => core.createNamespacedConfigMap({ namespace: ns, body: cm('elsewhere', 'x', {}) }),
      ]);
    },
  },
  {
    name: 'client-node/object-api-apply',
    run: (side, ns) => {
      const api = config(side).makeApiClient(KubernetesObjectApi);
      const lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l', namespace: ns },
        spec: { holderIdentity: 'me', leaseDurationSeconds: 10 },
      } as KubernetesObject;
      return record([
        () => api.patch(lease, undefined, undefined, 'diff-a', true, PatchStrategy.ServerSideApply),
        () =>
          api.patch(
            { ...lease, spec: { holderIdentity: 'you' } } as KubernetesObject,
            undefined,
            undefined,
            'diff-b',
            false,
            PatchStrategy.ServerSideApply,
          ),
        () =>
          api.patch(
            { ...lease, spec: { holderIdentity: 'you' } } as KubernetesObject,
            undefined,
            undefined,
            'diff-b',
            true,
            PatchStrategy.ServerSideApply,
          ),
        () =>
          api.read({
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: 'l', namespace: ns },
          }),
        () => api.list('coordination.k8s.io/v1', 'Lease', ns),
      ]);
    },
  },
  {
    name: 'client-node/deployment-scale',
    run: (side, ns) => {
      const apps = config(side).makeApiClient(AppsV1Api);
      const dep = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: ns },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: 'd' } },
          template: {
            metadata: { labels: { app: 'd' } },
            spec: { containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      };
      // The deployment controller writes the new Deployment's status, each write a version:
      // read its scale once that has settled on both sides, not while one side is still writing.
      const settled = async () => {
        for (let i = 0; i < 150; i++) {
          const d = await apps.readNamespacedDeployment({ namespace: ns, name: 'd' });
          const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
          if (
            d.status?.observedGeneration === d.metadata?.generation &&
            progressing?.reason === 'NewReplicaSetAvailable'
          )
            return;
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      return record([
        async () => {
          const created = await apps.createNamespacedDeployment({ namespace: ns, body: dep });
          await settled();
          return created;
        },
        () => apps.readNamespacedDeploymentScale({ namespace: ns, name: 'd' }),
        () =>
          apps.replaceNamespacedDeploymentScale({
            namespace: ns,
            name: 'd',
            body: { metadata: { name: 'd', namespace: ns }, spec: { replicas: 0 } },
          }),
        () => apps.readNamespacedDeploymentScale({ namespace: ns, name: 'd' }),
      ]);
    },
  },
  {
    name: 'client-node/watch-events',
    run: async (side, ns) => {
      const kc = config(side);
      const core = kc.makeApiClient(CoreV1Api);
      const leases = kc.makeApiClient(CoordinationV1Api);
      const list = await leases.listNamespacedLease({ namespace: ns });
      const events: unknown[] = [];
      const w = new Watch(kc);
      const req = await w.watch(
        `/api/v1/namespaces/${ns}/configmaps`,
        { resourceVersion: list.metadata?.resourceVersion },
        (type, obj: KubernetesObject) =>
          events.push({ type, name: obj.metadata?.name, data: (obj as { data?: unknown }).data }),
        () => undefined,
      );
      const run = await record([
        () => core.createNamespacedConfigMap({ namespace: ns, body: cm(ns, 'w1', { a: '1' }) }),
        () =>
          core.patchNamespacedConfigMap(
            { namespace: ns, name: 'w1', body: [{ op: 'add', path: '/data/b', value: '2' }] },
            setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
          ),
        () => core.deleteNamespacedConfigMap({ namespace: ns, name: 'w1' }),
      ]);
      for (let i = 0; i < 40 && events.length < 3; i++)
        await new Promise((r) => setTimeout(r, 100));
      req.abort();
      run.observations.push({ events });
      return run;
    },
  },
];
