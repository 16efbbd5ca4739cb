/**
 * Where the views get cluster state from: the embedded fake cluster, or a kubeconfig context
 * through @kubernetes/client-node. The views only see this interface.
 */
import type { KubeObject, TypeRef, WatchEvent } from '../../cluster/apimachinery/types';
import type { ApiServer } from '../../runtime/apiserver';
import type { CustomResourceKind } from './resourcetree';

export const CRD_TYPE: TypeRef = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
};

/** Built-in kinds an operator typically owns; watched so owned children show under their CR. */
export const OWNED_KINDS: TypeRef[] = [
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { apiVersion: 'v1', kind: 'Pod' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  // Events are not owned, but shown under the object they are about.
  { apiVersion: 'v1', kind: 'Event' },
];

export interface ResourceSource {
  /** Shown in the status bar: "fake cluster" or the kubeconfig context's name. */
  readonly name: string;
  /** Writes (apply, delete) are refused unless the user opted in. */
  readonly readOnly: boolean;
  customKinds(): Promise<CustomResourceKind[]>;
  /** Lists then watches each kind; calls onEvent with ADDED for what exists. Returns a stop function. */
  watch(
    kinds: TypeRef[],
    onEvent: (ev: WatchEvent) => void,
    onError: (err: unknown) => void,
  ): () => void;
  get(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject>;
  /** Create or replace from a manifest the user edited. */
  apply(obj: KubeObject): Promise<KubeObject>;
  delete(type: TypeRef, namespace: string | undefined, name: string): Promise<void>;
  /**
   * For a real cluster: the API server the runtime runs reconcilers against (informers and writes
   * through @kubernetes/client-node, real clock). The embedded cluster has none: it is served
   * in-process.
   */
  remoteApi?(): Promise<ApiServer>;
  dispose(): void;
}

/** The field manager of everything the editor applies, as kubectl uses "kubectl". */
export const FIELD_MANAGER = 'reconcile-studio';

/** An apply configuration never carries managedFields (the server owns them). */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  const { managedFields: _managed, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

export function typeOfKind(k: CustomResourceKind): TypeRef {
  return { apiVersion: k.group ? `${k.group}/${k.version}` : k.version, kind: k.kind };
}

/** Reads the served version of each CRD; the CRD objects themselves are plain API objects. */
export function kindsFromCrds(crds: KubeObject[]): CustomResourceKind[] {
  const out: CustomResourceKind[] = [];
  for (const crd of crds) {
    const spec = crd.spec as
      | {
          group: string;
          names: { kind: string; plural: string };
          scope: string;
          versions: Array<{ name: string; served?: boolean; storage?: boolean }>;
        }
      | undefined;
    if (!spec?.versions?.length) continue;
    const version =
      spec.versions.find((v) => v.storage) ??
      spec.versions.find((v) => v.served) ??
      spec.versions[0]!;
    out.push({
      group: spec.group,
      version: version.name,
      kind: spec.names.kind,
      plural: spec.names.plural,
      namespaced: spec.scope !== 'Cluster',
    });
  }
  return out;
}
