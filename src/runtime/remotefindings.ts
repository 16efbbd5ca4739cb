/**
 * What findings read of a real cluster (observedfindings.ts' FindingsSource) while an operator
 * session runs on it through the recording proxy. The proxy's record holds only what the operator
 * asked for; the Events findings need (a ReplicaSet's FailedCreate under a quota, say) are about
 * objects the operator neither reads nor watches, written by the cluster's own controllers. So
 * they are read from the cluster itself, with the user's own credentials (not through the proxy:
 * they are not the operator's calls, and the proxy's faults are not meant for them):
 *
 * - Events: core/v1, which also shows the Events written through events.k8s.io/v1 (one store,
 *   two views), watched only with `type=Warning` (every Event a finding reads is a Warning), only
 *   in the namespaces the operator has written to (the audit record of its calls names them): an
 *   object the operator made, and whatever its controllers made from it, lives there. A namespace
 *   whose Events the user may not read is given up at the first Forbidden, and said once.
 * - The owner chain of each Event findings read (findings.ts' ownerChain): its object and that
 *   object's controller owners, fetched once the Event arrives or changes, up to the reconciled
 *   type (which is not fetched), and kept for the synchronous walk findings make.
 * - The reconciled types: the cluster's discovery (asked again for a group and kind it lacks, a
 *   CRD installed since).
 *
 * Nothing is read before the operator writes, and dispose() stops every watch: a session starts
 * one source and stops it with the operator.
 */
import { isForbidden, StatusError, newNotFound } from '../cluster/apimachinery/errors';
import type { KubeObject, ObjectKey, TypeRef } from '../cluster/apimachinery/types';
import type { AuditEvent, AuditLog } from '../cluster/endpoints/audit';
import { RealClock, type Clock } from '../util/clock';
import { isPromise, type ApiServer } from './apiserver';
import {
  EVENT_FINDINGS_SELECTOR,
  OWNER_CHAIN_DEPTH,
  isFindingEvent,
  type ClusterEvent,
} from './findings';
import { Informer } from './informer';
import { typeIn, type FindingsSource } from './observedfindings';

const EVENT: TypeRef = { apiVersion: 'v1', kind: 'Event' };
const WRITES = new Set<string>(['create', 'update', 'patch']);

/** A server that can be asked to discover its resources again (RemoteApiServer can). */
export type DiscoveringApiServer = ApiServer & { refreshDiscovery?(): Promise<void> };

export interface RemoteFindingsOptions {
  /** The operator's user in the record: its successful writes name the namespaces to watch. */
  user: string;
  /** For the watches' retries; the server's clock, else the wall clock. */
  clock?: Clock;
  /** Told once per namespace whose Events cannot be read (the message says why). */
  onProblem?(message: string): void;
}

type Ref = { apiVersion: string; kind: string; namespace?: string; name: string };

const groupOf = (apiVersion: string) =>
  apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
/** An object by group, kind, namespace and name: an owner reference may name another version. */
const keyOf = (apiVersion: string, kind: string, namespace: string | undefined, name: string) =>
  `${groupOf(apiVersion)}/${kind}/${namespace ?? ''}/${name}`;

export class RemoteFindingsSource implements FindingsSource {
  /** One Event informer per namespace the operator wrote to; a forbidden one stays, stopped. */
  private readonly informers = new Map<string, Informer>();
  private readonly fetched = new Map<string, KubeObject>();
  private readonly fetching = new Set<string>();
  /** Group/kind of the types the controllers reconcile: an owner chain ends there, unfetched. */
  private readonly reconciled = new Set<string>();
  private readonly rediscovered = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly unfollow: Array<() => void> = [];
  private readonly clock: Clock;
  private stopped = false;

  /** What was fetched of the finding Events' owner chains (read synchronously, never a request). */
  readonly objects = {
    get: (type: TypeRef, key: ObjectKey): KubeObject => {
      const obj = this.fetched.get(keyOf(type.apiVersion, type.kind, key.namespace, key.name));
      if (!obj)
        throw newNotFound({ group: groupOf(type.apiVersion), resource: type.kind }, key.name);
      return obj;
    },
  };

  constructor(
    private readonly api: DiscoveringApiServer,
    private readonly opts: RemoteFindingsOptions,
  ) {
    this.clock = opts.clock ?? api.clock ?? new RealClock();
  }

  /**
   * Reads the proxy's record after `since` (what the operator did before this source existed:
   * the connection to the cluster need not hold the operator's start), then follows it until
   * disposed.
   */
  follow(audit: AuditLog, since = 0): void {
    if (this.stopped) return;
    for (const ev of audit.events({ user: this.opts.user, since })) this.onAudit(ev);
    this.unfollow.push(audit.subscribe((ev) => this.onAudit(ev)));
  }

  /** One event of the proxy's record: the operator's successful writes start their namespaces' watches. */
  onAudit(ev: AuditEvent): void {
    if (this.stopped || ev.user !== this.opts.user || ev.stage !== 'ResponseComplete') return;
    if (WRITES.has(ev.verb) && ev.code >= 200 && ev.code < 300 && ev.namespace)
      this.watchNamespace(ev.namespace);
  }

  /** The namespaces whose Events are watched (or were, until refused). */
  namespaces(): string[] {
    return [...this.informers.keys()].sort();
  }

  events(): ClusterEvent[] {
    const out: ClusterEvent[] = [];
    for (const inf of this.informers.values())
      for (const e of inf.list()) out.push(e as unknown as ClusterEvent);
    return out;
  }

  typeOf(group: string, kind: string): TypeRef | undefined {
    this.reconciled.add(`${group}/${kind}`);
    const t = typeIn(this.api.resources?.() ?? [], group, kind);
    if (!t && this.api.refreshDiscovery && !this.rediscovered.has(`${group}/${kind}`)) {
      this.rediscovered.add(`${group}/${kind}`);
      this.api.refreshDiscovery().then(
        () => this.changed(),
        () => undefined,
      );
    }
    return t;
  }

  /** Called when what findings would read has changed (an Event, an object, discovery). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.stopped = true;
    for (const off of this.unfollow.splice(0)) off();
    for (const inf of this.informers.values()) inf.stop();
    this.informers.clear();
    this.fetched.clear();
    this.listeners.clear();
  }

  private watchNamespace(namespace: string): void {
    if (this.informers.has(namespace)) return;
    const informer = new Informer({
      api: this.api,
      type: EVENT,
      clock: this.clock,
      namespace,
      fieldSelector: EVENT_FINDINGS_SELECTOR,
      onError: (err) => {
        // No retry mends a refusal: given up, and said once.
        if (!isForbidden(err) && !(err instanceof StatusError && err.code === 401)) return;
        informer.stop();
        this.opts.onProblem?.(
          `The Events of namespace ${namespace} cannot be read with this context's credentials, so findings from them are left out: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    });
    informer.addEventHandler({
      onAdd: (e) => this.onEvent(e),
      onUpdate: (_old, e) => this.onEvent(e),
      onDelete: (e) => isFindingEvent(e as unknown as ClusterEvent) && this.changed(),
    });
    this.informers.set(namespace, informer);
    informer.start();
  }

  private onEvent(obj: KubeObject): void {
    const e = obj as unknown as ClusterEvent;
    if (!isFindingEvent(e)) return;
    this.changed();
    const o = e.involvedObject;
    if (o?.apiVersion && o.kind && o.name)
      this.fetch(
        { apiVersion: o.apiVersion, kind: o.kind, namespace: o.namespace, name: o.name },
        0,
      );
  }

  /** Fetches `ref` and its controller owners in turn, up to the reconciled type or the depth findings walk. */
  private fetch(ref: Ref, depth: number): void {
    if (this.stopped || depth >= OWNER_CHAIN_DEPTH) return;
    if (this.reconciled.has(`${groupOf(ref.apiVersion)}/${ref.kind}`)) return;
    const key = keyOf(ref.apiVersion, ref.kind, ref.namespace, ref.name);
    if (this.fetching.has(key)) return;
    const got = (() => {
      try {
        return this.api.get(
          { apiVersion: ref.apiVersion, kind: ref.kind },
          { namespace: ref.namespace, name: ref.name },
        );
      } catch {
        return undefined;
      }
    })();
    if (got === undefined) return;
    const store = (obj: KubeObject) => {
      if (this.stopped) return;
      this.fetched.set(key, obj);
      this.changed();
      const owners = obj.metadata.ownerReferences ?? [];
      const owner = owners.find((r) => r.controller) ?? owners[0];
      if (owner)
        this.fetch(
          {
            apiVersion: owner.apiVersion,
            kind: owner.kind,
            namespace: obj.metadata.namespace,
            name: owner.name,
          },
          depth + 1,
        );
    };
    if (!isPromise(got)) return store(got);
    this.fetching.add(key);
    got.then(
      (obj) => {
        this.fetching.delete(key);
        store(obj);
      },
      () => this.fetching.delete(key),
    );
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
