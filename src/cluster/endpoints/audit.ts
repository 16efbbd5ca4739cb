/**
 * The served cluster's audit log, after kube-apiserver's (`k8s.io/apiserver/pkg/apis/audit`):
 * one event per request with who made it (the user its bearer token names, its user agent), the
 * apiserver verb, the resource it touched, the response code and Status, when it started and
 * ended, and — for writes — the object before and after (audit level RequestResponse).
 *
 * This is how the editor tells what an operator process did, as opposed to kubectl or the
 * editor itself: each client gets a token of its own, and findings and the debugger read this
 * record filtered by user. Memory is bounded: the oldest events are dropped past `limit`, and the
 * oldest events' objects past `objectBytes` (a write of a few huge objects would otherwise hold
 * thousands of their versions, as the watch window bounds its own by bytes).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../apimachinery/types';
import type { WebhookCallRecord } from '../admission/webhook/callrecord';

export type { WebhookCallRecord };

/** kube-apiserver's request verbs (`k8s.io/apiserver/pkg/endpoints/request.RequestInfo.Verb`). */
export type AuditVerb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * Audit stages as kube-apiserver names them: a watch is reported when its response starts (the
 * stream is open) and again when it completes; every other request once, when it completes.
 */
export type AuditStage = 'ResponseStarted' | 'ResponseComplete';

export interface AuditEvent {
  /** Position in this log (1-based, increasing); `since` filters on it. */
  seq: number;
  /** kube-apiserver's per-request `auditID`. */
  auditID: string;
  stage: AuditStage;
  user: string;
  userAgent: string;
  verb: AuditVerb;
  /** Path and query as sent. */
  requestURI: string;
  /** Empty for requests that name no resource (discovery, /version, /healthz…). */
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** HTTP status of the response (0 while a watch is still open). */
  code: number;
  /** The fault (faults.ts) injected into this request, by name: the debugger marks these. */
  fault?: string;
  /** From the Status body of an error response. */
  reason?: string;
  message?: string;
  /** Wall-clock ms since the epoch, like zap's `ts` (seconds) and audit's timestamps. */
  start: number;
  end?: number;
  /** Writes: the stored object before the request and the object returned after it. */
  before?: KubeObject;
  after?: KubeObject;
  /** Audit annotations admission added (webhooks' own, their mutations and failures open). */
  annotations?: Record<string, string>;
  /**
   * The webhooks this request called (admission and conversion), in call order: each with its
   * verdict or failure and latency (`admission/webhook/callrecord.ts`).
   */
  webhookCalls?: WebhookCallRecord[];
}

export interface AuditFilter {
  user?: string;
  /** Only events with `seq` greater than this. */
  since?: number;
}

/** What the server knows when a request arrives; the rest is filled in as it is served. */
export type AuditRequest = Pick<AuditEvent, 'user' | 'userAgent' | 'requestURI'> & {
  method: string;
};

/** The fields the server fills in once it has routed the request to a resource. */
export type AuditTarget = Pick<
  AuditEvent,
  'verb' | 'apiVersion' | 'resource' | 'subresource' | 'namespace' | 'name'
>;

export const DEFAULT_AUDIT_LIMIT = 10_000;
/** How many bytes (of serialized objects) the events' `before`/`after` keep at most. */
export const DEFAULT_AUDIT_OBJECT_BYTES = 32 * 1024 * 1024;

const jsonSize = (o: KubeObject) => JSON.stringify(o).length;

export class AuditLog {
  private readonly buffer: AuditEvent[] = [];
  private readonly listeners = new Set<(ev: AuditEvent) => void>();
  private seq = 0;
  readonly limit: number;
  private readonly objectBytes: number;
  private readonly sizeOf: (o: KubeObject) => number;
  /** Events still holding objects, oldest first, with those objects' size. */
  private readonly holding: Array<{ e: AuditEvent; size: number }> = [];
  private holdingStart = 0;
  private heldBytes = 0;

  constructor(
    opts: {
      limit?: number;
      now?: () => number;
      /** At most this many bytes of objects (by `sizeOf`, default their JSON length). */
      objectBytes?: number;
      sizeOf?: (o: KubeObject) => number;
    } = {},
  ) {
    this.limit = opts.limit ?? DEFAULT_AUDIT_LIMIT;
    this.now = opts.now ?? Date.now;
    this.objectBytes = opts.objectBytes ?? DEFAULT_AUDIT_OBJECT_BYTES;
    this.sizeOf = opts.sizeOf ?? jsonSize;
  }

  readonly now: () => number;

  /** Starts the record of one request; the server completes it with `complete`. */
  begin(req: AuditRequest): InFlight {
    return new InFlight(this, req);
  }

  /** Recorded events, oldest first, optionally for one user and after a sequence number. */
  events(filter: AuditFilter = {}): AuditEvent[] {
    return this.buffer.filter(
      (e) =>
        (filter.user === undefined || e.user === filter.user) &&
        (filter.since === undefined || e.seq > filter.since),
    );
  }

  /** Calls `listener` with every event recorded from now on; returns the unsubscribe function. */
  subscribe(listener: (ev: AuditEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets every event (the sequence keeps counting, so `since` stays valid). */
  clear(): void {
    this.buffer.length = 0;
    this.holding.length = 0;
    this.holdingStart = 0;
    this.heldBytes = 0;
  }

  /** Counts `e`'s objects and drops the oldest events' objects beyond the byte bound (the newest stay). */
  private hold(e: AuditEvent): void {
    if (!e.before && !e.after) return;
    const size = (e.before ? this.sizeOf(e.before) : 0) + (e.after ? this.sizeOf(e.after) : 0);
    this.holding.push({ e, size });
    this.heldBytes += size;
    while (
      this.holding.length - this.holdingStart > 1 &&
      // Past the byte bound, or already dropped from the buffer (the buffer keeps the last `limit` seqs).
      (this.heldBytes > this.objectBytes ||
        this.holding[this.holdingStart].e.seq <= this.seq - this.limit)
    ) {
      const old = this.holding[this.holdingStart++];
      delete old.e.before;
      delete old.e.after;
      this.heldBytes -= old.size;
    }
    // Compact now and then rather than shifting on every write.
    if (this.holdingStart > 1024) {
      this.holding.splice(0, this.holdingStart);
      this.holdingStart = 0;
    }
  }

  /** @internal used by InFlight */
  record(ev: Omit<AuditEvent, 'seq'>): void {
    const e: AuditEvent = { seq: ++this.seq, ...ev };
    this.buffer.push(e);
    if (this.buffer.length > this.limit) this.buffer.splice(0, this.buffer.length - this.limit);
    this.hold(e);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure is its own; the request is already served.
      }
    }
  }
}

/** One request being served. */
export class InFlight {
  private readonly start: number;
  /**
   * The request's audit ID, which the response names in its `Audit-Id` header. The recording
   * proxy (src/proxy) replaces it with the one the real apiserver answered with, so that an event
   * names the same request in both logs.
   */
  auditID: string = randomUUID();
  private target: AuditTarget;
  private status: { reason?: string; message?: string } = {};
  private objects: { before?: KubeObject; after?: KubeObject } = {};
  private fault: string | undefined;
  private annotations: Record<string, string> | undefined;
  private webhookCalls: WebhookCallRecord[] | undefined;
  private done = false;

  constructor(
    private readonly log: AuditLog,
    private readonly req: AuditRequest,
  ) {
    this.start = log.now();
    // Until routed, a request is a read of a non-resource path, as the apiserver classifies it.
    this.target = {
      verb: verbOf(req.method, true, false),
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
    };
  }

  /** The request was routed to a resource. */
  resolve(t: Omit<AuditTarget, 'verb'>, watch: boolean): void {
    this.routed({
      apiVersion: t.apiVersion,
      resource: t.resource,
      subresource: t.subresource,
      namespace: t.namespace,
      name: t.name,
      verb: verbOf(this.req.method, t.name !== '', watch),
    });
  }

  /** The request's target with its verb, as a RequestInfo read from its path gives them. */
  routed(t: AuditTarget): void {
    this.target = t;
  }

  /** The error Status the response carries. */
  fail(status: { reason?: string; message?: string }): void {
    this.status = {
      ...(status.reason ? { reason: status.reason } : {}),
      ...(status.message ? { message: status.message } : {}),
    };
  }

  /** A fault was injected into this request. */
  injected(fault: string): void {
    this.fault = fault;
  }

  /** A write's object before (as stored) and after (as returned). */
  objectsOf(before: KubeObject | undefined, after: KubeObject | undefined): void {
    const objects: { before?: KubeObject; after?: KubeObject } = {};
    if (before) objects.before = before;
    if (after) objects.after = after;
    this.objects = objects;
  }

  /** Admission's audit annotations and the webhooks called, once the request has run. */
  admitted(annotations: Record<string, string>, calls: WebhookCallRecord[]): void {
    if (Object.keys(annotations).length) this.annotations = { ...annotations };
    if (calls.length) this.webhookCalls = [...calls];
  }

  /** A watch stream opened: recorded as the ResponseStarted stage. */
  started(code: number): void {
    this.log.record(this.event('ResponseStarted', code));
  }

  /** The response ended with `code`; records the event (once). */
  complete(code: number): void {
    if (this.done) return;
    this.done = true;
    this.log.record(this.event('ResponseComplete', code, this.log.now()));
  }

  private event(stage: AuditStage, code: number, end?: number): Omit<AuditEvent, 'seq'> {
    return {
      auditID: this.auditID,
      stage,
      user: this.req.user,
      userAgent: this.req.userAgent,
      requestURI: this.req.requestURI,
      ...this.target,
      code,
      ...(this.fault !== undefined ? { fault: this.fault } : {}),
      ...this.status,
      start: this.start,
      ...this.objects,
      ...(this.annotations ? { annotations: this.annotations } : {}),
      ...(this.webhookCalls ? { webhookCalls: this.webhookCalls } : {}),
      ...(end !== undefined ? { end } : {}),
    };
  }
}

/** kube-apiserver's mapping of method (and whether a name / watch was given) to verb. */
export function verbOf(method: string, named: boolean, watch: boolean): AuditVerb {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return watch ? 'watch' : named ? 'get' : 'list';
  }
}
