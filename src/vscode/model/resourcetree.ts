/**
 * The Custom Resources tree as data: CRD kind → namespace → object → owned objects and the
 * Events about it (core/v1 Events by `involvedObject.uid`, as `kubectl describe` finds them). Fed
 * by watch events; each event returns the ids of the nodes it changed, so the view refreshes only
 * those. Nodes are cached by id and updated in place, so the tree keeps selection and expansion.
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
  /** Owned objects (by ownerReference) and Events about it, shown as children. */
  childCount: number;
  /** Whether this object is a custom resource (vs an owned built-in such as a Deployment). */
  custom: boolean;
}
/** An Event about an object (its reason, message, type and count). */
export interface EventNode {
  type: 'event';
  id: string;
  event: KubeObject & {
    reason?: string;
    message?: string;
    type?: string;
    count?: number;
    lastTimestamp?: string;
    eventTime?: string;
  };
}
export type ResourceNode = KindNode | NamespaceNode | ObjectNode | EventNode;

/** Events shown per object: the newest, as `kubectl describe` lists the recent ones. */
export const EVENTS_SHOWN = 20;

const kindKey = (group: string, kind: string) => `${group}/${kind}`;
const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const CLUSTER_SCOPE = '';

export class ResourceTreeModel {
  private kinds = new Map<string, CustomResourceKind>();
  private readonly objects = new Map<string, KubeObject>();
  /** kindKey → namespace → uids */
  private readonly byKind = new Map<string, Map<string, Set<string>>>();
  private readonly ownedBy = new Map<string, Set<string>>();
  /** Object uid → uids of the Events about it. */
  private readonly eventsOf = new Map<string, Set<string>>();
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
    if (isEvent(obj)) return this.applyEvent(ev.type, obj, uid, previous);
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

  /** An Event: kept under the object it is about, whose node is refreshed. */
  private applyEvent(
    type: WatchEvent['type'],
    event: KubeObject,
    uid: string,
    previous: KubeObject | undefined,
  ): string[] {
    const about = involvedUid(event);
    const before = previous && involvedUid(previous);
    if (before && before !== about) this.eventsOf.get(before)?.delete(uid);
    if (type === 'DELETED') {
      this.objects.delete(uid);
      this.nodes.delete(`e:${uid}`);
      if (about) this.eventsOf.get(about)?.delete(uid);
    } else {
      this.objects.set(uid, event);
      const node = this.nodes.get(`e:${uid}`);
      if (node?.type === 'event') node.event = event;
      if (about) {
        let set = this.eventsOf.get(about);
        if (!set) this.eventsOf.set(about, (set = new Set()));
        set.add(uid);
      }
    }
    const changed = [`e:${uid}`];
    for (const u of [about, before]) if (u) this.touchChildren(u, changed);
    return [...new Set(changed)];
  }

  /**
   * An object's children changed: its cached node's count follows at once (a node drawn before
   * its first child arrived must turn expandable when the view refreshes it).
   */
  private touchChildren(uid: string, changed: string[]): void {
    const node = this.nodes.get(`o:${uid}`);
    if (node?.type === 'object') node.childCount = this.childCountOf(uid);
    changed.push(`o:${uid}`);
  }

  private childCountOf(uid: string): number {
    return (
      (this.ownedBy.get(uid)?.size ?? 0) + Math.min(this.eventsOf.get(uid)?.size ?? 0, EVENTS_SHOWN)
    );
  }

  private index(obj: KubeObject, uid: string, structural: string[]): void {
    for (const owner of owners(obj)) {
      let set = this.ownedBy.get(owner);
      if (!set) this.ownedBy.set(owner, (set = new Set()));
      set.add(uid);
      this.touchChildren(owner, structural);
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
      this.touchChildren(owner, structural);
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
    if (node.type === 'event') return [];
    const uid = node.object.metadata.uid!;
    return [...this.objectNodes(this.ownedBy.get(uid)), ...this.eventNodes(this.eventsOf.get(uid))];
  }

  /** The newest EVENTS_SHOWN Events, oldest first (as `kubectl describe` lists them). */
  private eventNodes(uids: Set<string> | undefined): EventNode[] {
    if (!uids) return [];
    const events: EventNode['event'][] = [];
    for (const uid of uids) {
      const e = this.objects.get(uid);
      if (e) events.push(e);
    }
    return events
      .sort((a, b) => cmp(eventTime(a), eventTime(b)))
      .slice(-EVENTS_SHOWN)
      .map((event) => {
        const id = `e:${event.metadata.uid}`;
        return this.node<EventNode>(id, { type: 'event', id, event }, { event });
      });
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
      const childCount = this.childCountOf(uid);
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

function isEvent(obj: KubeObject): boolean {
  return obj.kind === 'Event' && (obj.apiVersion === 'v1' || obj.apiVersion === 'events.k8s.io/v1');
}

/** The uid of the object an Event is about: core/v1's involvedObject, events.k8s.io's regarding. */
function involvedUid(e: KubeObject): string | undefined {
  const x = e as { involvedObject?: { uid?: string }; regarding?: { uid?: string } };
  return x.involvedObject?.uid || x.regarding?.uid || undefined;
}

/** When an Event last happened: lastTimestamp (core/v1), else eventTime, else its creation. */
function eventTime(e: EventNode['event']): string {
  return e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? '';
}

function owners(obj: KubeObject): string[] {
  return (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter(Boolean);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
