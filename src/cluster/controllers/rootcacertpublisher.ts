/**
 * kube-controller-manager's root-ca-cert-publisher (pkg/controller/certificates/
 * rootcacertpublisher): every active namespace gets a ConfigMap `kube-root-ca.crt` holding the CA
 * bundle that verifies the apiserver's serving certificate, which pods mount to call
 * kubernetes.default.svc. It is put back when deleted and mended when its data or its one
 * annotation is changed. The bundle is the served cluster's own CA, so the controller starts
 * when the cluster is first served over HTTPS (as kube-controller-manager reads `--root-ca-file`
 * at start); an in-process cluster that is never served has no CA to publish.
 */
import type { ControllerHost } from './controllerhost';
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { WorkQueue } from './workqueue';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const MANAGER = { fieldManager: 'kube-controller-manager' };

/** Publishes `caPem` into every namespace; returns the stop. */
export function startRootCACertPublisher(cluster: ControllerHost, caPem: string): () => void {
  const q = new WorkQueue('root_ca_cert_publisher', cluster.clock, (ns) =>
    syncNamespace(cluster, ns, caPem),
  );
  const unsub = cluster.subscribe((c) => {
    const o = c.object;
    if (c.storageKey === '/namespaces') {
      // namespaceAdded queues every new namespace; namespaceUpdated only active ones.
      if (c.type === 'ADDED' || (c.type === 'MODIFIED' && isActive(o))) q.add(o.metadata.name!);
    } else if (
      c.storageKey === '/configmaps' &&
      o.metadata.name === ROOT_CA_CONFIGMAP &&
      c.type !== 'ADDED'
    ) {
      q.add(o.metadata.namespace!);
    }
  });
  for (const ns of cluster.scan(NAMESPACE)) q.add(ns.metadata.name!);
  return () => {
    unsub();
    q.stop();
  };
}

function isActive(ns: KubeObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return !ns.metadata.deletionTimestamp && (phase === undefined || phase === 'Active');
}

function syncNamespace(cluster: ControllerHost, ns: string, caPem: string): void {
  const data = { 'ca.crt': caPem };
  const cm = cluster.peek(CONFIGMAP, { namespace: ns, name: ROOT_CA_CONFIGMAP });
  if (!cm) {
    try {
      cluster.create(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: ROOT_CA_CONFIGMAP,
            namespace: ns,
            annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION },
          },
          data,
        },
        MANAGER,
      );
    } catch (err) {
      // Upstream does not retry a create into a missing or terminating namespace.
      if (err instanceof StatusError && (err.code === 404 || isNamespaceTerminating(err))) return;
      throw err;
    }
    return;
  }
  const current = (cm as { data?: Record<string, string> }).data;
  const same =
    current !== undefined &&
    Object.keys(current).length === 1 &&
    current['ca.crt'] === caPem &&
    (cm.metadata.annotations?.[DESCRIPTION_ANNOTATION] ?? '') !== '';
  if (same) return;
  const next = structuredClone(cm) as KubeObject & { data?: Record<string, string> };
  next.data = data;
  next.metadata.annotations = {
    ...next.metadata.annotations,
    [DESCRIPTION_ANNOTATION]: DESCRIPTION,
  };
  cluster.update(next, MANAGER);
}

function isNamespaceTerminating(err: StatusError): boolean {
  return !!err.status.details?.causes?.some((c) => c.reason === 'NamespaceTerminating');
}
