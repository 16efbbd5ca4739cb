/**
 * ValidateEventCreate and ValidateEventUpdate (pkg/apis/core/validation/events.go of the pinned
 * release). Both APIs' Events are stored as core/v1 Events, so the rules read core/v1's field
 * names; they differ by the request's version as upstream's do: a core/v1 write gets the legacy
 * rules only (their reporting controller named `reportingComponent`), an events.k8s.io/v1 write
 * the new Event's rules too, its fields named as the internal type names them. Where this differs:
 * upstream's core/v1 Event validation skips ObjectMeta, leaving only every create's generic
 * path-segment check of the name, while the cluster checks a core Event's name as a DNS
 * subdomain (the name rules' default), so it refuses names kube-apiserver takes.
 */
import { fieldInvalid, fieldRequired, type FieldError } from '../apimachinery/errors';
import { isQualifiedName, validateName } from '../apimachinery/names';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { rec, str } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;

/** A time field left at Go's zero time (absent or null in JSON). */
const zeroTime = (v: unknown): boolean => v === undefined || v === null || v === '';

const LIMIT = { reportingInstance: 128, action: 128, reason: 128, message: 1024 } as const;

/** Which API the write came through: core/v1 or events.k8s.io/v1. */
export type EventAPI = 'v1' | 'events.k8s.io/v1';

export function validateEvent(obj: KubeObject, old: KubeObject | undefined, api: EventAPI) {
  const errs = legacyErrors(obj, api);
  if (api === 'v1') return errs;
  const e = obj as Obj;
  if (!old) {
    errs.push(...seriesErrors(e));
    if (zeroTime(e.eventTime)) errs.push(fieldRequired('eventTime'));
    if (e.type !== 'Normal' && e.type !== 'Warning')
      errs.push(fieldInvalid('type', '', `has invalid value: ${str(e.type)}`));
    for (const key of ['firstTimestamp', 'lastTimestamp'] as const)
      if (!zeroTime(e[key])) errs.push(fieldInvalid(key, '', 'needs to be unset'));
    if (typeof e.count === 'number' && e.count !== 0)
      errs.push(fieldInvalid('count', '', 'needs to be unset'));
    const source = rec(e.source);
    if (str(source.component) || str(source.host))
      errs.push(fieldInvalid('source', '', 'needs to be unset'));
    return errs;
  }
  const o = old as Obj;
  if (!deepEqual(e.series ?? null, o.series ?? null)) errs.push(...seriesErrors(e));
  // ValidateImmutableField over each field the new Event may not change, reason twice as there.
  const immutable: Array<[string, string]> = [
    ['involvedObject', 'involvedObject'],
    ['reason', 'reason'],
    ['message', 'message'],
    ['source', 'source'],
    ['firstTimestamp', 'firstTimestamp'],
    ['lastTimestamp', 'lastTimestamp'],
    ['count', 'count'],
    ['reason', 'reason'],
    ['type', 'type'],
    ['eventTime', 'eventTime'],
    ['action', 'action'],
    ['related', 'related'],
    ['reportingComponent', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
  ];
  for (const [key, field] of immutable)
    if (!deepEqual(e[key] ?? null, o[key] ?? null))
      errs.push(fieldInvalid(field, e[key] ?? null, 'field is immutable'));
  return errs;
}

function seriesErrors(e: Obj): FieldError[] {
  if (!isObject(e.series)) return [];
  const errs: FieldError[] = [];
  const count = typeof e.series.count === 'number' ? e.series.count : 0;
  if (count < 2) errs.push(fieldInvalid('series.count', '', 'should be at least 2'));
  if (zeroTime(e.series.lastObservedTime)) errs.push(fieldRequired('series.lastObservedTime'));
  return errs;
}

/** legacyValidateEvent. */
function legacyErrors(obj: KubeObject, api: EventAPI): FieldError[] {
  const e = obj as Obj;
  const errs: FieldError[] = [];
  const ns = obj.metadata.namespace ?? '';
  const involvedNs = str(rec(e.involvedObject).namespace);
  const mismatch = () =>
    errs.push(
      fieldInvalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'),
    );
  if (zeroTime(e.eventTime)) {
    if (!involvedNs) {
      if (ns !== '' && ns !== 'default') mismatch();
    } else if (ns !== involvedNs) mismatch();
  } else {
    if (!involvedNs && ns !== 'default' && ns !== 'kube-system') mismatch();
    const controllerField = api === 'v1' ? 'reportingComponent' : 'reportingController';
    const controller = str(e.reportingComponent);
    if (!controller) errs.push(fieldRequired(controllerField));
    for (const m of isQualifiedName(controller))
      errs.push(fieldInvalid(controllerField, controller, m));
    for (const key of ['reportingInstance', 'action', 'reason'] as const) {
      const v = str(e[key]);
      if (!v) errs.push(fieldRequired(key));
      if (v.length > LIMIT[key])
        errs.push(fieldInvalid(key, '', `can have at most ${LIMIT[key]} characters`));
    }
    if (str(e.message).length > LIMIT.message)
      errs.push(fieldInvalid('message', '', `can have at most ${LIMIT.message} characters`));
  }
  for (const m of validateName(ns, 'subdomain')) errs.push(fieldInvalid('namespace', ns, m));
  return errs;
}
