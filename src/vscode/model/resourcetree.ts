/**
 * The Custom Resources tree as data: CRD kind → namespace → object → owned objects. Fed by watch
 * events; each event returns the ids of the nodes it changed, so the view refreshes only those.
 * Nodes are cached by id and updated in place, so the tree keeps selection and expansion.
 */
import type { KubeObject, WatchEvent } from '../../cluster/apimachinery/types';
import { objectStatus, type ObjectStatus } from './objectstatus';

export interface CustomResourceKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface KindNode {
  type: 'kind';
  id: string;
  kind: CustomResourceKind;
  count: number;
}
export interface NamespaceNode {
  type: 'namespace';
  id: string;
  kind: CustomResourceKind;
  namespace: string;
  count: number;
}
export interface ObjectNode {
  type: 'object';
  id: string;
  object: KubeObject;
  status: ObjectStatus;
  /** Owned objects (by ownerReference), shown as children. */
  childCount: number;
  /** Whether this object is a custom resource (vs an owned built-in such as a Deployment). */
  custom: boolean;
}
export type ResourceNode = KindNode | NamespaceNode | ObjectNode;

const kindKey = (group: string, kind: string) => `${group}/${kind}`;
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const CLUSTER_SCOPE = '';

export class ResourceTreeModel {
  private kinds = new Map<string, CustomResourceKind>();
  private readonly objects = new Map<string, KubeObject>();
  /** kindKey → namespace → uids */
  private readonly byKind = new Map<string, Map<string, Set<string>>>();
  private readonly ownedBy = new Map<string, Set<string>>();
  private readonly nodes = new Map<string, ResourceNode>();

  setKinds(kinds: CustomResourceKind[]): string[] {
    this.kinds = new Map(kinds.map((k) => [kindKey(k.group, k.kind), k]));
    return ['root'];
  }

  get kindCount(): number {
    return this.kinds.size;
  }

  get objectCount(): number {
    let n = 0;
    for (const byNs of this.byKind.values()) for (const set of byNs.values()) n += set.size;
    return n;
  }

  isCustom(obj: KubeObject): boolean {
    return this.kinds.has(kindKey(groupOf(obj.apiVersion), obj.kind));
  }

  /** Applies one watch event and returns the ids of the nodes to refresh ('root' for the top). */
  apply(ev: WatchEvent): string[] {
    const obj = ev.object;
    const uid = obj.metadata?.uid;
    if (!uid || ev.type === 'BOOKMARK' || ev.type === 'ERROR') return [];
    const changed: string[] = [];
    const previous = this.objects.get(uid);
    if (ev.type === 'DELETED') {
      if (!previous) return [];
      this.objects.delete(uid);
      this.nodes.delete(`o:${uid}`);
      this.unindex(previous, uid, changed);
      return changed;
    }
    this.objects.set(uid, obj);
    if (previous) this.unindex(previous, uid, []);
    this.index(obj, uid, previous ? [] : changed);
    const node = this.nodes.get(`o:${uid}`);
    if (node?.type === 'object') {
      node.object = obj;
      node.status = objectStatus(obj);
    }
    changed.push(`o:${uid}`);
    for (const owner of owners(obj)) changed.push(`o:${owner}`);
    for (const owner of previous ? owners(previous) : []) changed.push(`o:${owner}`);
    return [...new Set(changed)];
  }

  private index(obj: KubeObject, uid: string, structural: string[]): void {
    for (const owner of owners(obj)) {
      let set = this.ownedBy.get(owner);
      if (!set) this.ownedBy.set(owner, (set = new Set()));
      set.add(uid);
    }
    const key = kindKey(groupOf(obj.apiVersion), obj.kind);
    if (!this.kinds.has(key)) return;
    let byNs = this.byKind.get(key);
    if (!byNs) this.byKind.set(key, (byNs = new Map()));
    const ns = obj.metadata.namespace ?? CLUSTER_SCOPE;
    let set = byNs.get(ns);
    if (!set) {
      byNs.set(ns, (set = new Set()));
      structural.push(`k:${key}`);
    }
    set.add(uid);
    structural.push(`n:${key}/${ns}`, `k:${key}`, 'root');
  }

  private unindex(obj: KubeObject, uid: string, structural: string[]): void {
    for (const owner of owners(obj)) {
      this.ownedBy.get(owner)?.delete(uid);
      structural.push(`o:${owner}`);
    }
    const key = kindKey(groupOf(obj.apiVersion), obj.kind);
    const byNs = this.byKind.get(key);
    const ns = obj.metadata.namespace ?? CLUSTER_SCOPE;
    const set = byNs?.get(ns);
    if (!set?.delete(uid)) return;
    structural.push(`n:${key}/${ns}`, `k:${key}`);
    if (set.size === 0) {
      byNs!.delete(ns);
      structural.push('root');
    }
  }

  roots(): KindNode[] {
    return [...this.kinds.entries()]
      .sort(([, a], [, b]) => a.kind.localeCompare(b.kind) || a.group.localeCompare(b.group))
      .map(([key, kind]) => {
        const count = [...(this.byKind.get(key)?.values() ?? [])].reduce((n, s) => n + s.size, 0);
        return this.node<KindNode>(
          `k:${key}`,
          { type: 'kind', id: `k:${key}`, kind, count },
          { count, kind },
        );
      });
  }

  children(node: ResourceNode | undefined): ResourceNode[] {
    if (!node) return this.roots();
    if (node.type === 'kind') {
      const key = kindKey(node.kind.group, node.kind.kind);
      const byNs = this.byKind.get(key);
      if (!byNs) return [];
      if (!node.kind.namespaced) return this.objectNodes(byNs.get(CLUSTER_SCOPE));
      return [...byNs.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([namespace, set]) => {
          const id = `n:${key}/${namespace}`;
          return this.node<NamespaceNode>(
            id,
            { type: 'namespace', id, kind: node.kind, namespace, count: set.size },
            { count: set.size },
          );
        });
    }
    if (node.type === 'namespace') {
      return this.objectNodes(
        this.byKind.get(kindKey(node.kind.group, node.kind.kind))?.get(node.namespace),
      );
    }
    return this.objectNodes(this.ownedBy.get(node.object.metadata.uid!));
  }

  /** The cached node for an id, if it has been shown. */
  nodeById(id: string): ResourceNode | undefined {
    return id === 'root' ? undefined : this.nodes.get(id);
  }

  objectByUid(uid: string): KubeObject | undefined {
    return this.objects.get(uid);
  }

  private objectNodes(uids: Set<string> | undefined): ObjectNode[] {
    if (!uids) return [];
    const out: ObjectNode[] = [];
    for (const uid of uids) {
      const obj = this.objects.get(uid);
      if (!obj) continue;
      const id = `o:${uid}`;
      const childCount = this.ownedBy.get(uid)?.size ?? 0;
      const fresh = (): ObjectNode => ({
        type: 'object',
        id,
        object: obj,
        status: objectStatus(obj),
        childCount,
        custom: this.isCustom(obj),
      });
      const node = this.nodes.get(id) as ObjectNode | undefined;
      if (node) node.childCount = childCount;
      out.push(node ?? (this.nodes.set(id, fresh()).get(id) as ObjectNode));
    }
    // Kubernetes names are lowercase ASCII, so code-unit order is the order kubectl shows (and
    // much faster than localeCompare on 10,000 objects).
    return out.sort(
      (a, b) =>
        cmp(a.object.kind, b.object.kind) ||
        cmp(a.object.metadata.name ?? '', b.object.metadata.name ?? ''),
    );
  }

  private node<T extends ResourceNode>(id: string, fresh: T, update: Partial<T>): T {
    const existing = this.nodes.get(id) as T | undefined;
    if (existing) return Object.assign(existing, update);
    this.nodes.set(id, fresh);
    return fresh;
  }
}

function owners(obj: KubeObject): string[] {
  return (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter(Boolean);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
