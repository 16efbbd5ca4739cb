/**
 * controller-runtime's pkg/handler: turns a watch event on some object into reconcile Requests.
 * - EnqueueRequestForObject: the object itself (what `for` uses);
 * - EnqueueRequestForOwner: the object's owner of a given kind — with onlyController, only the
 *   owner reference marked controller=true (what `owns` uses);
 * - EnqueueRequestsFromMapFunc: whatever a map function returns (what `watches` uses).
 * On Update, both the old and the new object are mapped, so a child that changes owner
 * reconciles both owners (adds of the same key coalesce in the queue).
 */
import type { KubeObject, TypeRef } from '../cluster/apimachinery/types';
import { splitApiVersion } from '../cluster/apimachinery/types';
import type { EventKind } from './predicate';
import type { Request } from './reconcile';

/** What caused an enqueue, kept in the trace's `enqueue` phase. */
export interface EnqueueCause {
  handler: 'for' | 'owns' | 'watches';
  event: EventKind;
  object: ObjectRef;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  resourceVersion?: string;
  generation?: number;
}

export function objectRef(o: KubeObject): ObjectRef {
  // This runs for every watch event a controller hears. The usual object (namespaced, with a
  // generation) gets one literal: members added to a literal later go to a second object, and a
  // queued key keeps its trigger's reference until its reconcile. Others get their members one by
  // one rather than spread: each spread of a conditional object is an object made and walked.
  const md = o.metadata;
  if (md.namespace && md.resourceVersion && md.generation !== undefined) {
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: md.name ?? '',
      namespace: md.namespace,
      resourceVersion: md.resourceVersion,
      generation: md.generation,
    };
  }
  const ref: ObjectRef = { apiVersion: o.apiVersion, kind: o.kind, name: md.name ?? '' };
  if (md.namespace) ref.namespace = md.namespace;
  if (md.resourceVersion) ref.resourceVersion = md.resourceVersion;
  if (md.generation !== undefined) ref.generation = md.generation;
  return ref;
}

export type Enqueue = (req: Request, cause: EnqueueCause) => void;

/**
 * Enqueues each distinct request once per event (the queue would coalesce them anyway). An event
 * maps to one or two requests almost always, compared directly; a Set only for longer lists.
 */
function enqueueAll(reqs: Request[], cause: EnqueueCause, enqueue: Enqueue): void {
  if (reqs.length <= 2) {
    if (reqs.length) enqueue(reqs[0], cause);
    if (reqs.length === 2 && !sameRequest(reqs[0], reqs[1])) enqueue(reqs[1], cause);
    return;
  }
  const seen = new Set<string>();
  for (const r of reqs) {
    const k = `${r.namespace}/${r.name}`;
    if (seen.has(k)) continue;
    seen.add(k);
    enqueue(r, cause);
  }
}

function sameRequest(a: Request, b: Request): boolean {
  return a.namespace === b.namespace && a.name === b.name;
}

export interface EventHandler {
  readonly kind: EnqueueCause['handler'];
  handle(event: EventKind, obj: KubeObject, old: KubeObject | undefined, enqueue: Enqueue): void;
}

export type MapFunc = (obj: KubeObject) => Request[];

export class EnqueueRequestForObject implements EventHandler {
  readonly kind = 'for' as const;

  /**
   * The object's own request. An update's old and new objects are one object, with one key:
   * controller-runtime enqueues ObjectNew's.
   */
  handle(event: EventKind, obj: KubeObject, _old: KubeObject | undefined, enqueue: Enqueue): void {
    enqueue(
      { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' },
      { handler: this.kind, event, object: objectRef(obj) },
    );
  }
}

export class EnqueueRequestForOwner implements EventHandler {
  readonly kind = 'owns' as const;
  private readonly group: string;

  constructor(
    readonly ownerType: TypeRef,
    readonly onlyController = true,
    /** Whether the owner kind is namespaced (cluster-scoped owners get an empty namespace). */
    readonly ownerNamespaced = true,
  ) {
    this.group = splitApiVersion(ownerType.apiVersion).group;
  }

  /** Owners are matched by group and kind, not version, as upstream does. */
  ownerRequests(obj: KubeObject): Request[] {
    const out: Request[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (ref.kind !== this.ownerType.kind) continue;
      if (splitApiVersion(ref.apiVersion).group !== this.group) continue;
      if (this.onlyController && ref.controller !== true) continue;
      out.push({
        namespace: this.ownerNamespaced ? (obj.metadata.namespace ?? '') : '',
        name: ref.name,
      });
    }
    return out;
  }

  handle(event: EventKind, obj: KubeObject, old: KubeObject | undefined, enqueue: Enqueue): void {
    const cause = { handler: this.kind, event, object: objectRef(obj) };
    enqueueAll(
      [...this.ownerRequests(obj), ...(old ? this.ownerRequests(old) : [])],
      cause,
      enqueue,
    );
  }
}

export class EnqueueRequestsFromMapFunc implements EventHandler {
  readonly kind = 'watches' as const;

  constructor(readonly map: MapFunc) {}

  handle(event: EventKind, obj: KubeObject, old: KubeObject | undefined, enqueue: Enqueue): void {
    const cause = { handler: this.kind, event, object: objectRef(obj) };
    enqueueAll([...this.map(obj), ...(old ? this.map(old) : [])], cause, enqueue);
  }
}
