/**
 * API errors as kube-apiserver returns them (k8s.io/apimachinery/pkg/api/errors): a `Status`
 * body with reason, code and the same message wording, so operators see what they would see
 * against a real cluster.
 */
import type { Status, StatusCause, StatusDetails } from './types';

export class StatusError extends Error {
  readonly status: Status;

  constructor(status: Status) {
    super(status.message);
    this.name = 'StatusError';
    this.status = status;
  }

  get code(): number {
    return this.status.code;
  }

  /** metav1.StatusReason: "" (StatusReasonUnknown) when the Status has none. */
  get reason(): string {
    return this.status.reason ?? '';
  }

  toJSON(): Status {
    return this.status;
  }
}

/** Group-qualified resource as the apiserver prints it: `widgets.example.com`, `pods`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function status(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetails,
): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    ...(reason ? { reason } : {}),
    ...(details ? { details: withoutEmpty(details) } : {}),
    code,
  });
}

/** StatusDetails as encoding/json writes it: its empty strings (a core group) are omitted. */
function withoutEmpty(details: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  for (const [k, v] of Object.entries(details) as Array<[keyof StatusDetails, unknown]>) {
    if (v !== '' && v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

export function newNotFound(gr: GroupResource, name: string): StatusError {
  return status(404, 'NotFound', `${qualified(gr)} "${name}" not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return status(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function newConflict(gr: GroupResource, name: string, err: string): StatusError {
  return status(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${err}`,
    { name, group: gr.group, kind: gr.resource },
  );
}

export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

export function newForbidden(gr: GroupResource, name: string, err: string): StatusError {
  const msg = name
    ? `${qualified(gr)} "${name}" is forbidden: ${err}`
    : `${qualified(gr)} is forbidden: ${err}`;
  return status(403, 'Forbidden', msg, { name, group: gr.group, kind: gr.resource });
}

/** One field error as field.Error renders it: `spec.replicas: Invalid value: -1: detail`. */
export interface FieldError {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueTypeInvalid'
    | 'FieldValueDuplicate'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany';
  field: string;
  message: string;
}

/**
 * field.OmitValueType: an error that names no value (`spec: Invalid value: color is immutable`),
 * as a CEL rule's failure on an object or a list does.
 */
export const OMIT_VALUE: unique symbol = Symbol('omit value');

export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return {
    type: 'FieldValueInvalid',
    field,
    message:
      value === OMIT_VALUE
        ? `Invalid value: ${detail}`
        : `Invalid value: ${renderValue(value)}: ${detail}`,
  };
}

export function fieldDuplicate(field: string, value: unknown): FieldError {
  return {
    type: 'FieldValueDuplicate',
    field,
    message: value === OMIT_VALUE ? 'Duplicate value' : `Duplicate value: ${renderValue(value)}`,
  };
}

export function fieldRequired(field: string, detail = ''): FieldError {
  return {
    type: 'FieldValueRequired',
    field,
    message: detail ? `Required value: ${detail}` : 'Required value',
  };
}

export function fieldNotSupported(field: string, value: unknown, valid: unknown[]): FieldError {
  return {
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${renderValue(value)}: supported values: ${valid.map((v) => renderValue(v)).join(', ')}`,
  };
}

/** field.TooLong: the value is omitted, the limit named in bytes. */
export function fieldTooLong(field: string, maxLength: number): FieldError {
  const unit = maxLength === 1 ? 'byte' : 'bytes';
  return {
    type: 'FieldValueTooLong',
    field,
    message: `Too long: may not be more than ${maxLength} ${unit}`,
  };
}

/** field.TooMany: how many there are, and the most allowed. */
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  const unit = max === 1 ? 'item' : 'items';
  return {
    type: 'FieldValueTooMany',
    field,
    message: `Too many: ${actual}: must have at most ${max} ${unit}`,
  };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` };
}

export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldError {
  return {
    type: 'FieldValueTypeInvalid',
    field,
    message: `Invalid value: ${renderValue(value)}: ${detail}`,
  };
}

/** A value rendered verbatim in a field error (Go's %#v of non-JSON values, e.g. `0x0`). */
export class RawValue {
  constructor(readonly text: string) {}
}

/**
 * field.Error's value rendering (ErrorBody): strings quoted (%q), numbers and booleans bare, and
 * anything else as json.Marshal writes it — null, lists, and maps with their keys sorted.
 */
function renderValue(v: unknown): string {
  if (v instanceof RawValue) return v.text;
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return goJSON(v);
}

/** A string as Go's json.Marshal writes it: HTML-safe (`<`, `>`, `&` escaped) and U+2028/9 too. */
export function goJSONString(s: string): string {
  return JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** JSON as Go's encoding/json writes a map[string]interface{}: keys sorted. */
function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${goJSONString(k)}:${goJSON(o[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'string') return goJSONString(v);
  return JSON.stringify(v) ?? 'null';
}

/** 422 Invalid; kind is the Kind (qualified by group) the way NewInvalid prints it. */
export function newInvalid(
  qualifiedKind: { group: string; kind: string },
  name: string,
  errs: FieldError[],
): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({
    reason: e.type,
    message: `${e.message}`,
    field: e.field,
  }));
  // utilerrors' aggregate says each distinct error once (the causes keep them all).
  const rendered = [
    ...new Set(errs.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message))),
  ];
  const agg = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  const kindName = qualifiedKind.group
    ? `${qualifiedKind.kind}.${qualifiedKind.group}`
    : qualifiedKind.kind;
  return status(422, 'Invalid', `${kindName} "${name}" is invalid: ${agg}`, {
    name,
    group: qualifiedKind.group,
    kind: qualifiedKind.kind,
    causes,
  });
}

export function newBadRequest(message: string): StatusError {
  return status(400, 'BadRequest', message);
}

export function newGone(message: string): StatusError {
  return status(410, 'Expired', message);
}

/**
 * The storage layer's "too large resource version" (a read at a resourceVersion the store has not
 * reached), as storage.NewTooLargeResourceVersionError builds it: apierrors.NewTimeoutError with
 * the ResourceVersionTooLarge cause.
 */
export function newTooLargeResourceVersion(
  asked: number,
  current: number,
  retryAfterSeconds: number,
): StatusError {
  return status(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${asked}, current: ${current}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    },
  );
}

export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return status(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind "${qualified(gr)}"`,
    {
      group: gr.group,
      kind: gr.resource,
    },
  );
}

export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return status(401, 'Unauthorized', message);
}

export function newRequestEntityTooLarge(message: string): StatusError {
  return status(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
  'application/strategic-merge-patch+json',
];

/**
 * 415 as negotiation.NewUnsupportedMediaTypeError words it (the media types the handler accepts,
 * not the one it got); `accepted` defaults to the PATCH verb's media types.
 */
export function newUnsupportedMediaType(accepted: string[] = PATCH_MEDIA_TYPES): StatusError {
  return status(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/**
 * go-restful's own 415, for a Content-Type a built-in route does not consume (a PATCH that names
 * no patch type), as the apiserver's service error handler wraps it: NewGenericServerResponse,
 * empty details.
 */
export function newRouteUnsupportedMediaType(): StatusError {
  const err = status(415, 'UnsupportedMediaType', '415: Unsupported Media Type');
  err.status.details = {};
  return err;
}

/** go-restful's 406 for an Accept no route produces, wrapped as the service error handler does. */
export function newRouteNotAcceptable(produces: readonly string[]): StatusError {
  const err = status(
    406,
    'NotAcceptable',
    `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`,
  );
  err.status.details = {};
  return err;
}

export function newNotFoundPath(): StatusError {
  // go-restful's 404 inside a web service, wrapped as the service error handler does: empty details.
  return status(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** errors.NewMethodNotSupported's sibling for a path that is no resource (a non-resource route). */
export function newMethodNotAllowedPath(): StatusError {
  return status(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
    {},
  );
}

/** A storage error no conversion recognizes: 500 with reason Unknown (""), as convertStorageErrorOrNot. */
export function newUnknownStorageError(message: string): StatusError {
  return status(500, '', message);
}

export function newInternal(message: string): StatusError {
  return status(500, 'InternalError', `Internal error occurred: ${message}`);
}

/** errors.NewInternalError(err) with the error as its one cause, as the apiserver writes it. */
export function newInternalError(message: string): StatusError {
  return status(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  });
}

/**
 * errors.NewTooManyRequests: the response carries `Retry-After` from the details (a zero delay
 * is left out of them, as its JSON tag's omitempty does).
 */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return status(429, 'TooManyRequests', message, retryAfterSeconds ? { retryAfterSeconds } : {});
}

/** errors.NewServiceUnavailable (with the optional retry delay of a 503). */
export function newServiceUnavailable(message: string, retryAfterSeconds?: number): StatusError {
  return status(
    503,
    'ServiceUnavailable',
    message,
    retryAfterSeconds ? { retryAfterSeconds } : undefined,
  );
}

/** errors.NewTimeoutError: 504 with the message prefixed `Timeout: `. */
export function newTimeoutError(message: string, retryAfterSeconds = 0): StatusError {
  return status(
    504,
    'Timeout',
    `Timeout: ${message}`,
    retryAfterSeconds ? { retryAfterSeconds } : undefined,
  );
}

export function newNotAcceptable(message: string): StatusError {
  return status(406, 'NotAcceptable', message);
}

function codeOf(err: unknown): number | undefined {
  if (err instanceof StatusError) return err.code;
  if (typeof err === 'object' && err !== null) {
    const c = (err as { code?: unknown }).code;
    if (typeof c === 'number') return c;
    const s = (err as { status?: unknown }).status;
    if (typeof s === 'object' && s !== null && typeof (s as { code?: unknown }).code === 'number') {
      return (s as { code: number }).code;
    }
  }
  return undefined;
}

/** The reason of a StatusError or of any plain object carrying one (errors that crossed a worker boundary). */
export function reasonOf(err: unknown): string | undefined {
  if (err instanceof StatusError) return err.reason;
  if (typeof err === 'object' && err !== null) {
    const r = (err as { reason?: unknown }).reason;
    if (typeof r === 'string') return r;
    const s = (err as { status?: unknown }).status;
    if (
      typeof s === 'object' &&
      s !== null &&
      typeof (s as { reason?: unknown }).reason === 'string'
    ) {
      return (s as { reason: string }).reason;
    }
  }
  return undefined;
}

function is(err: unknown, reason: string, code: number): boolean {
  const r = reasonOf(err);
  if (r !== undefined && r !== '' && r !== 'Unknown') return r === reason;
  return codeOf(err) === code;
}

export function isNotFound(err: unknown): boolean {
  return is(err, 'NotFound', 404);
}
export function isConflict(err: unknown): boolean {
  return is(err, 'Conflict', 409);
}
export function isAlreadyExists(err: unknown): boolean {
  return reasonOf(err) === 'AlreadyExists';
}
export function isForbidden(err: unknown): boolean {
  return is(err, 'Forbidden', 403);
}
export function isInvalid(err: unknown): boolean {
  return is(err, 'Invalid', 422);
}
export function isGone(err: unknown): boolean {
  const r = reasonOf(err);
  return r === 'Expired' || r === 'Gone' || codeOf(err) === 410;
}
export function isBadRequest(err: unknown): boolean {
  return is(err, 'BadRequest', 400);
}

/**
 * client.IgnoreNotFound for promises: undefined for a NotFound, the error rethrown otherwise, so
 * `await client.get(...).catch(ignoreNotFound)` yields the object or undefined, and
 * `catch (err) { ignoreNotFound(err); return {}; }` swallows only NotFound.
 */
export function ignoreNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}
