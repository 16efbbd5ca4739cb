/**
 * The `kubernetes` Service in `default`: kube-apiserver's own bootstrap controller
 * (pkg/controlplane/controller/kubernetesservice) keeps it, so every cluster has it — envtest's
 * too, which runs no controller-manager. Its clusterIP is the first address of the service range
 * (the fake allocates from kube-apiserver's default 10.96.0.0/12), its port 443 forwards to the
 * apiserver's secure port: kube-apiserver's default until the cluster is served, then the port it
 * is served on.
 */
import type { Cluster } from '../cluster';
import type { KubeObject } from '../apimachinery/types';

const SERVICE = { apiVersion: 'v1', kind: 'Service' };
const KEY = { namespace: 'default', name: 'kubernetes' };
/** kube-apiserver's default `--secure-port`. */
export const DEFAULT_SECURE_PORT = 6443;
const CLUSTER_IP = '10.96.0.1';

function kubernetesService(securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { component: 'apiserver', provider: 'kubernetes' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP: CLUSTER_IP,
      clusterIPs: [CLUSTER_IP],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
      sessionAffinity: 'None',
    },
  };
}

/** Creates the Service, or points its port at `securePort` (UpdateKubernetesService). */
export function ensureKubernetesService(cluster: Cluster, securePort = DEFAULT_SECURE_PORT): void {
  const current = cluster.peek(SERVICE, KEY);
  if (!current) {
    cluster.create(kubernetesService(securePort), { fieldManager: 'kube-apiserver' });
    return;
  }
  const ports = (current.spec as { ports?: Array<{ targetPort?: unknown }> } | undefined)?.ports;
  if (ports?.length === 1 && ports[0]!.targetPort === securePort) return;
  const next = structuredClone(current);
  const wanted = kubernetesService(securePort).spec as { ports: unknown };
  (next.spec as { ports: unknown }).ports = wanted.ports;
  cluster.update(next, { fieldManager: 'kube-apiserver' });
}
