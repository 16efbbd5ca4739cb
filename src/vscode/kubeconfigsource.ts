/**
 * A real cluster through @kubernetes/client-node: any context of the user's kubeconfig. Read-only
 * unless the user turned writes on (reconcileStudio.cluster.allowWrites), because a click in a
 * tree should never change production by accident.
 */
import * as k8s from '@kubernetes/client-node';
import type { KubeObject, TypeRef, WatchEvent } from '../cluster/apimachinery/types';
import type { ApiServer } from '../runtime/apiserver';
import { RemoteApiServer } from '../runtime/remote';
import {
  FIELD_MANAGER,
  CRD_TYPE,
  kindsFromCrds,
  withoutManagedFields,
  type ResourceSource,
} from './model/source';
import type { CustomResourceKind } from './model/resourcetree';

/** The contexts a kubeconfig offers, current one first. */
export function kubeconfigContexts(file?: string): { current: string; contexts: string[] } {
  const kc = new k8s.KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromDefault();
  const current = kc.getCurrentContext();
  const contexts = kc.getContexts().map((c) => c.name);
  return { current, contexts: [current, ...contexts.filter((c) => c !== current)] };
}

export class KubeconfigSource implements ResourceSource {
  readonly name: string;
  private readonly kc = new k8s.KubeConfig();
  private readonly objects: k8s.KubernetesObjectApi;
  private readonly aborts = new Set<AbortController>();
  private plurals = new Map<string, { plural: string; namespaced: boolean }>();

  constructor(
    context: string,
    readonly readOnly: boolean,
    file?: string,
  ) {
    if (file) this.kc.loadFromFile(file);
    else this.kc.loadFromDefault();
    this.kc.setCurrentContext(context);
    this.name = context;
    this.objects = k8s.KubernetesObjectApi.makeApiClient(this.kc);
  }

  async customKinds(): Promise<CustomResourceKind[]> {
    const list = await this.objects.list(CRD_TYPE.apiVersion, CRD_TYPE.kind);
    const kinds = kindsFromCrds(list.items as KubeObject[]);
    for (const k of kinds)
      this.plurals.set(`${k.group}/${k.version}/${k.kind}`, {
        plural: k.plural,
        namespaced: k.namespaced,
      });
    return kinds;
  }

  watch(
    kinds: TypeRef[],
    onEvent: (ev: WatchEvent) => void,
    onError: (err: unknown) => void,
  ): () => void {
    const watcher = new k8s.Watch(this.kc);
    let stopped = false;
    const watchOne = async (type: TypeRef) => {
      const list = await this.objects.list(type.apiVersion, type.kind);
      for (const item of list.items)
        onEvent({
          type: 'ADDED',
          object: { ...(item as KubeObject), apiVersion: type.apiVersion, kind: type.kind },
        });
      if (stopped) return;
      const path = this.collectionPath(type);
      const abort = await watcher.watch(
        path,
        { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
        (phase, obj) => onEvent({ type: phase as WatchEvent['type'], object: obj as KubeObject }),
        (err) => {
          if (err && !stopped) onError(err);
        },
      );
      if (stopped) abort.abort();
      else this.aborts.add(abort);
    };
    for (const type of kinds) watchOne(type).catch((err) => !stopped && onError(err));
    return () => {
      stopped = true;
      for (const a of this.aborts) a.abort();
      this.aborts.clear();
    };
  }

  async remoteApi(): Promise<ApiServer> {
    return RemoteApiServer.connect(this.kc, { fieldManager: FIELD_MANAGER });
  }

  async get(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject> {
    return (await this.objects.read({
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { name, namespace },
    })) as KubeObject;
  }

  async apply(obj: KubeObject): Promise<KubeObject> {
    this.assertWritable();
    // Server-side apply, as `kubectl apply --server-side --force-conflicts`: creates or updates,
    // and a resourceVersion left in the YAML is a precondition (409 when someone changed it since).
    const spec = withoutManagedFields(obj) as k8s.KubernetesObject;
    return (await this.objects.patch(
      spec,
      undefined,
      undefined,
      FIELD_MANAGER,
      true,
      k8s.PatchStrategy.ServerSideApply,
    )) as KubeObject;
  }

  async delete(type: TypeRef, namespace: string | undefined, name: string): Promise<void> {
    this.assertWritable();
    await this.objects.delete({
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { name, namespace },
    });
  }

  dispose(): void {
    for (const a of this.aborts) a.abort();
    this.aborts.clear();
  }

  private assertWritable(): void {
    if (this.readOnly) {
      throw new Error(
        `The context "${this.name}" is read-only in Reconcile Studio. Turn on reconcileStudio.cluster.allowWrites to change it.`,
      );
    }
  }

  /** The watch path for a kind: CRDs name their plural; the owned built-ins are regular. */
  private collectionPath(type: TypeRef): string {
    const [group, version] = type.apiVersion.includes('/')
      ? type.apiVersion.split('/')
      : ['', type.apiVersion];
    const known = this.plurals.get(`${group}/${version}/${type.kind}`);
    // Owned built-in kinds (model/source.ts OWNED_KINDS) all pluralize regularly.
    const resource = known?.plural ?? `${type.kind.toLowerCase()}s`;
    return group ? `/apis/${group}/${version}/${resource}` : `/api/${version}/${resource}`;
  }
}

/**
 * A reading connection to a context of a kubeconfig file with the user's own credentials, its
 * discovery done: what findings read of a real cluster while an operator runs on it
 * (runtime/remotefindings.ts). Only read through: nothing here writes.
 */
export async function connectContext(file: string, context: string): Promise<RemoteApiServer> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(file);
  if (!kc.getContextObject(context)) throw new Error(`${file} has no context "${context}"`);
  kc.setCurrentContext(context);
  return RemoteApiServer.connect(kc);
}

// The recording proxy needs client-node too: it travels in this bundle, which carries it.
export { defaultKubeconfig, listContexts, loadUpstream } from '../proxy/upstream';
export { startProxy } from '../proxy/server';
