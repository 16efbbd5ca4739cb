/**
 * The query parameters of list and watch requests as kube-apiserver reads them: booleans through
 * the parameter codec's conversion (apimachinery `runtime.Convert_Slice_string_To_bool`), and the
 * WatchList rules of `meta/internalversion/validation.ValidateListOptions`, whose violations are a
 * 422 on the `ListOptions.meta.k8s.io` kind.
 */
import { int64Param, queryBool } from '../endpoints/decode';
import { fieldForbidden, fieldNotSupported, newBadRequest, newInvalid } from './errors';
import { parseFieldSelector } from './selector';
import type { FieldError } from './errors';

export { queryBool };

const NOT_OLDER_THAN = 'NotOlderThan';
const EXACT = 'Exact';

/** Throws the apiserver's 422 when the list/watch parameters break its rules (WatchList on). */
export function validateListOptions(q: URLSearchParams): void {
  const errs = queryBool(q, 'watch') ? watchErrors(q) : listErrors(q);
  if (errs.length) throw newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
}

function listErrors(q: URLSearchParams): FieldError[] {
  const errs: FieldError[] = [];
  const match = q.get('resourceVersionMatch') ?? '';
  if (match) {
    if (!q.get('resourceVersion'))
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    if (q.get('continue'))
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        ),
      );
    if (match !== EXACT && match !== NOT_OLDER_THAN)
      errs.push(fieldNotSupported('resourceVersionMatch', match, [EXACT, NOT_OLDER_THAN, '']));
    if (match === EXACT && q.get('resourceVersion') === '0')
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (queryBool(q, 'sendInitialEvents') !== undefined)
    errs.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

function watchErrors(q: URLSearchParams): FieldError[] {
  const errs: FieldError[] = [];
  const match = q.get('resourceVersionMatch') ?? '';
  const sendInitialEvents = queryBool(q, 'sendInitialEvents');
  if (sendInitialEvents !== undefined && match !== NOT_OLDER_THAN)
    errs.push(
      fieldForbidden(
        'resourceVersionMatch',
        `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`,
      ),
    );
  if (match) {
    if (sendInitialEvents === undefined)
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    if (match !== NOT_OLDER_THAN)
      errs.push(fieldNotSupported('resourceVersionMatch', match, [NOT_OLDER_THAN]));
    if (q.get('continue'))
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        ),
      );
  }
  return errs;
}

/** kube-apiserver's default `--min-request-timeout`, in seconds. */
export const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

export interface WatchTimeoutOptions {
  /** The server's cap on every watch (`serve --watch-timeout`). */
  max?: number | undefined;
  /** `--min-request-timeout` (default 1800 s; 0 leaves watches without a time-out open). */
  minRequestTimeout?: number | undefined;
  /** Math.random, unless a test fixes it. */
  random?: () => number;
}

/**
 * How long a watch runs, as the apiserver's ListResource decides: its `timeoutSeconds`, or —
 * when it gives none (or 0) — a random time between `minRequestTimeout` and twice that (30 to
 * 60 minutes by default), so that the watches of many clients do not all end at once. Capped by
 * the server's maximum when it has one.
 */
export function watchTimeoutSeconds(
  q: URLSearchParams,
  opts: WatchTimeoutOptions = {},
): number | undefined {
  const asked = int64Param(q, 'timeoutSeconds');
  const min = opts.minRequestTimeout ?? MIN_REQUEST_TIMEOUT_SECONDS;
  const timeout =
    asked && asked > 0 ? asked : min > 0 ? min * ((opts.random ?? Math.random)() + 1) : undefined;
  if (!opts.max) return timeout;
  return timeout ? Math.min(timeout, opts.max) : opts.max;
}

/**
 * sendInitialEvents as the apiserver sees it after `SetListOptionsDefaults` (WatchList on, as
 * in kube-apiserver 1.34+): a watch from resourceVersion "" or "0" that says nothing about
 * WatchList is one (true), so with allowWatchBookmarks its initial events end with the
 * `k8s.io/initial-events-end` bookmark too.
 */
export function sendInitialEventsOf(q: URLSearchParams): boolean | undefined {
  const given = queryBool(q, 'sendInitialEvents');
  if (given !== undefined || q.get('resourceVersionMatch')) return given;
  const rv = q.get('resourceVersion') ?? '';
  return rv === '' || rv === '0' ? true : undefined;
}

/**
 * The query of a request on a legacy `watch/` path, as the apiserver's ListResource handler
 * (forceWatch) reads it: always a watch, and a watch of one object (`watch/.../NAME`) is a watch
 * of the collection with the field selector `metadata.name=NAME` — a field selector that asks for
 * another name is a 400.
 */
export function legacyWatchQuery(q: URLSearchParams, name: string | undefined): URLSearchParams {
  const out = new URLSearchParams(q);
  out.set('watch', 'true');
  if (name === undefined) return out;
  const given = q.get('fieldSelector') ?? '';
  if (given.trim()) {
    const byName = parseFieldSelector(given).find(
      (r) => r.field === 'metadata.name' && r.op === '=',
    );
    if (byName?.value !== name)
      throw newBadRequest("fieldSelector metadata.name doesn't match requested name");
  } else {
    out.set('fieldSelector', `metadata.name=${name.replace(/[\\,=]/g, (c) => `\\${c}`)}`);
  }
  return out;
}
