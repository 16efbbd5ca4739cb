/** The embedded fake cluster as a ResourceSource: in-process list+watch, writes always allowed. */
import type { Cluster } from '../cluster/cluster';
import type { KubeObject, TypeRef, WatchEvent } from '../cluster/apimachinery/types';
import {
  FIELD_MANAGER,
  CRD_TYPE,
  kindsFromCrds,
  withoutManagedFields,
  type ResourceSource,
} from './model/source';
import type { CustomResourceKind } from './model/resourcetree';

export class EmbeddedSource implements ResourceSource {
  readonly name = 'fake cluster';
  readonly readOnly = false;

  constructor(private readonly cluster: Cluster) {}

  async customKinds(): Promise<CustomResourceKind[]> {
    return kindsFromCrds(this.cluster.list(CRD_TYPE).items);
  }

  watch(
    kinds: TypeRef[],
    onEvent: (ev: WatchEvent) => void,
    onError: (err: unknown) => void,
  ): () => void {
    const stops: Array<() => void> = [];
    for (const type of kinds) {
      try {
        const list = this.cluster.list(type);
        for (const object of list.items) onEvent({ type: 'ADDED', object });
        const w = this.cluster.watch(
          type,
          { resourceVersion: list.metadata.resourceVersion },
          onEvent,
        );
        stops.push(() => w.stop());
      } catch (err) {
        onError(err);
      }
    }
    return () => stops.forEach((s) => s());
  }

  async get(type: TypeRef, namespace: string | undefined, name: string): Promise<KubeObject> {
    return this.cluster.get(type, { namespace, name });
  }

  /** Server-side apply, as `kubectl apply --server-side --force-conflicts`: creates or updates. */
  async apply(obj: KubeObject): Promise<KubeObject> {
    const key = { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
    return this.cluster.patch(obj, key, withoutManagedFields(obj), 'apply', {
      fieldManager: FIELD_MANAGER,
      force: true,
    });
  }

  async delete(type: TypeRef, namespace: string | undefined, name: string): Promise<void> {
    this.cluster.delete(type, { namespace, name });
  }

  dispose(): void {
    // The session owns the cluster.
  }
}
