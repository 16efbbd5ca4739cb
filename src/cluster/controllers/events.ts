/**
 * Events: the EventRecorder the built-in controllers (and the runtime) record with, aggregating
 * repeats of the same event into one object with a growing count as client-go's EventCorrelator
 * does, and the conversion between core/v1 and events.k8s.io/v1 Events (one store, two views).
 */
import { StatusError } from '../apimachinery/errors';
import type { Clock } from '../../util/clock';
import type { KubeObject, ObjectKey, TypeRef } from '../apimachinery/types';

type Obj = Record<string, unknown>;

/** Records an Event about `involved` (source: the reporting component). */
export type RecordEvent = (
  involved: KubeObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  source?: string,
) => void;

/** The calls the recorder makes: Events are read, created and updated like any object. */
export interface EventSink {
  readonly clock: Clock;
  now(): string;
  get(type: TypeRef, key: ObjectKey): KubeObject;
  create(obj: KubeObject): KubeObject;
  update(obj: KubeObject): KubeObject;
}

export class EventRecorder {
  /** aggregation key -> event name */
  private readonly seen = new Map<string, string>();
  private seq = 0;
  private readonly similar = new Map<string, { since: number; messages: Set<string> }>();

  constructor(private readonly cluster: EventSink) {}

  record(
    involved: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    source = 'fake-cluster',
  ): void {
    const md = involved.metadata;
    const namespace = md.namespace || 'default';
    const ref = objectReference(involved);
    // EventAggregator: after 10 similar events (same object and reason, different messages) in
    // 10 minutes, further ones fold into one "(combined from similar events)" event.
    const similarKey = [source, ref.kind, namespace, ref.name, ref.uid, type, reason].join(
      '\u0000',
    );
    const nowMs = this.cluster.clock.now();
    const sim = this.similar.get(similarKey);
    const fresh =
      sim && nowMs - sim.since < 600_000 ? sim : { since: nowMs, messages: new Set<string>() };
    fresh.messages.add(message);
    this.similar.set(similarKey, fresh);
    let key = [similarKey, message].join('\u0000');
    if (fresh.messages.size > 10) {
      message = `(combined from similar events): ${message}`;
      key = similarKey;
    }
    const now = this.cluster.now();
    const existingName = this.seen.get(key);
    if (existingName) {
      try {
        const ev = this.cluster.get(
          { apiVersion: 'v1', kind: 'Event' },
          { namespace, name: existingName },
        );
        ev.count = (typeof ev.count === 'number' ? ev.count : 1) + 1;
        ev.lastTimestamp = now;
        ev.message = message;
        this.cluster.update(ev);
        return;
      } catch (err) {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
    const event = newEvent(involved, type, reason, message, source, {
      ms: nowMs,
      seq: this.seq++,
      timestamp: now,
    });
    try {
      this.cluster.create(event);
      this.seen.set(key, event.metadata.name!);
      if (this.seen.size > 4096) this.seen.delete(this.seen.keys().next().value!);
    } catch (err) {
      // An event that cannot be recorded (namespace terminating, ...) is dropped, as the recorder does.
      if (!(err instanceof StatusError)) throw err;
    }
  }
}

/** The ObjectReference an Event's involvedObject holds. */
function objectReference(o: KubeObject): Obj {
  const md = o.metadata;
  return {
    kind: o.kind,
    ...(md.namespace ? { namespace: md.namespace } : {}),
    name: md.name,
    uid: md.uid,
    apiVersion: o.apiVersion,
    resourceVersion: md.resourceVersion,
  };
}

/**
 * A new core/v1 Event about `involved`, as client-go's recorder makes one (makeEvent): named
 * `<object>.<time in hex>` (the clock's ms as µs plus a sequence, where Go takes nanoseconds), in
 * the object's namespace (`default` for a cluster-scoped one), count 1.
 */
export function newEvent(
  involved: KubeObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
  source: string,
  at: { ms: number; seq: number; timestamp: string },
): KubeObject {
  const md = involved.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      name: `${md.name ?? 'unknown'}.${(at.ms * 1000 + (at.seq % 1000)).toString(16)}`,
      namespace: md.namespace || 'default',
    },
    involvedObject: objectReference(involved),
    reason,
    message,
    source: { component: source },
    firstTimestamp: at.timestamp,
    lastTimestamp: at.timestamp,
    count: 1,
    type,
    eventTime: null,
    reportingComponent: source,
    reportingInstance: '',
  };
}

/** Converts an Event between core/v1 and events.k8s.io/v1. */
export function convertEvent(o: KubeObject, apiVersion: string): KubeObject {
  const e = o as Obj;
  if (apiVersion === 'events.k8s.io/v1') {
    if (o.apiVersion === 'events.k8s.io/v1') return o;
    const out: Obj = {
      apiVersion,
      kind: 'Event',
      metadata: o.metadata,
      eventTime: e.eventTime ?? null,
      reportingController: e.reportingComponent ?? '',
      reportingInstance: e.reportingInstance ?? '',
      action: e.action,
      reason: e.reason,
      regarding: e.involvedObject,
      related: e.related,
      note: e.message,
      type: e.type,
      series: e.series,
      deprecatedSource: e.source,
      deprecatedFirstTimestamp: e.firstTimestamp,
      deprecatedLastTimestamp: e.lastTimestamp,
      deprecatedCount: e.count,
    };
    for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
    return out as KubeObject;
  }
  if (o.apiVersion !== 'events.k8s.io/v1') return { ...o, apiVersion };
  const out: Obj = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: o.metadata,
    involvedObject: e.regarding ?? {},
    related: e.related,
    reason: e.reason,
    message: e.note,
    // Convert_v1_Event_To_core_Event: the source is the deprecated one, nothing else.
    source: e.deprecatedSource ?? {},
    firstTimestamp: e.deprecatedFirstTimestamp ?? null,
    lastTimestamp: e.deprecatedLastTimestamp ?? null,
    count: e.deprecatedCount,
    type: e.type,
    eventTime: e.eventTime ?? null,
    series: e.series,
    action: e.action,
    reportingComponent: e.reportingController ?? '',
    reportingInstance: e.reportingInstance ?? '',
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as KubeObject;
}
