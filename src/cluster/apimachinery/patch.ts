/**
 * The patch kinds of the PATCH verb: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
 * strategic merge patch, which merges lists of built-in kinds by their patchMergeKey the way
 * k8s.io/apimachinery/pkg/util/strategicpatch does (the directives kubectl sends included). The
 * strategy and merge key of each field are the Go types' `patchStrategy`/`patchMergeKey` tags, from
 * the generated API graph.
 */
import * as jsonpatch from 'fast-json-patch';
import type { FieldInfo, Shape } from '../api/apigraph';
import { jsonFields } from '../api/apigraph';
import { StatusError, newBadRequest } from './errors';

type Json = unknown;
type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Sets and reads a key as an own data property: a `__proto__` key from a JSON document is a key
 * like any other, never the object's prototype.
 */
function setKey(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

function getKey(o: JsonObject, k: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
}

/** RFC 7386: objects merge recursively, null deletes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setKey(out, k, mergePatch(getKey(out, k), v));
  }
  return out;
}

/**
 * RFC 6902, applied to a copy. A body that is not a list of operations is the handler's 400
 * (its decoding into []jsonPatchOp); an operation that fails is NewGenericServerResponse's 422,
 * which says no more than that (its details are empty).
 */
export function jsonPatch(target: Json, ops: Json): Json {
  if (ops === null) ops = []; // Go decodes null into a nil slice: nothing to do
  if (!Array.isArray(ops))
    throw newBadRequest(
      `error decoding patch: json: cannot unmarshal ${typeof ops === 'object' ? 'object' : typeof ops === 'string' ? 'string' : typeof ops === 'number' ? 'number' : 'bool'} into Go value of type []handlers.jsonPatchOp`,
    );
  try {
    const doc = structuredClone(target);
    return jsonpatch.applyPatch(doc, ops as jsonpatch.Operation[], true, true, true).newDocument;
  } catch {
    throw new StatusError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  }
}

/**
 * Where a strategic merge is in the Go type: a shape, or `unknown` for a field the type does not
 * declare (or no type at all: its lists are atomic, as for JSON that no Go type describes).
 */
type Place = Shape | 'unknown';

function deref(p: Place): Place {
  return typeof p !== 'string' && p.k === 'ptr' ? p.elem : p;
}

/** The place of `key` inside an object at `p`: a struct's field, or a map's value. */
function fieldPlace(p: Place, key: string): { place: Place; field?: FieldInfo } {
  const s = deref(p);
  if (typeof s === 'string') return { place: s };
  if (s.k === 'struct') {
    const f = jsonFields(s.t).get(key);
    return f ? { place: f.shape, field: f } : { place: 'unknown' };
  }
  if (s.k === 'map') return { place: s.elem };
  return { place: 'unknown' };
}

/** Strategic merge patch for built-in kinds; `type` is the kind's Go type, when known. */
export function strategicMergePatch(target: Json, patch: Json, type?: Shape): Json {
  if (!isObject(patch)) throw newBadRequest('invalid JSON document');
  return smpObject(isObject(target) ? target : {}, patch, type ?? 'unknown');
}

function smpObject(target: JsonObject, patch: JsonObject, place: Place): JsonObject {
  if (patch['$patch'] === 'replace') {
    const rest = { ...patch };
    delete rest['$patch'];
    return stripDirectives(rest) as JsonObject;
  }
  if (patch['$patch'] === 'delete') return {};
  const out: JsonObject = { ...target };
  const retain = Array.isArray(patch['$retainKeys'])
    ? (patch['$retainKeys'] as string[])
    : undefined;
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) {
        out[field] = (out[field] as unknown[]).filter((x) => !v.includes(x));
        if ((out[field] as unknown[]).length === 0) delete out[field];
      }
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = getKey(out, k);
    // Deleting what is not there leaves it absent (not an empty map in its place).
    if (isObject(v) && v['$patch'] === 'delete' && cur === undefined) continue;
    const child = fieldPlace(place, k);
    if (Array.isArray(v)) {
      const order = patch[`$setElementOrder/${k}`];
      setKey(out, k, smpList(Array.isArray(cur) ? cur : [], v, order, child));
    } else if (isObject(v)) {
      setKey(out, k, smpObject(isObject(cur) ? cur : {}, v, child.place));
    } else {
      setKey(out, k, v);
    }
  }
  if (retain)
    for (const k of Object.keys(out)) if (!retain.includes(k) && !(k in patch)) delete out[k];
  return out;
}

/** How a list field merges: by key, as a set of primitives, or atomically (undefined). */
type ListMerge = { key: string; elem: Place } | { primitive: true } | undefined;

function listMerge({ place, field: f }: { place: Place; field?: FieldInfo }): ListMerge {
  const s = deref(place);
  if (typeof s === 'string' || s.k !== 'slice' || !f?.patchStrategy?.split(',').includes('merge'))
    return undefined;
  const elem = deref(s.elem);
  if (typeof elem !== 'string' && (elem.k === 'scalar' || elem.k === 'bytes'))
    return { primitive: true };
  return f.patchMergeKey ? { key: f.patchMergeKey, elem: s.elem } : undefined;
}

function smpList(
  target: unknown[],
  patch: unknown[],
  order: unknown,
  place: { place: Place; field?: FieldInfo },
): unknown[] {
  const how = listMerge(place);
  if (how && 'primitive' in how) {
    const out = [...target];
    for (const p of patch) if (!out.includes(p)) out.push(p);
    return out;
  }
  if (!how) {
    // Atomic list, unless the patch asks for a full replace; either way the patch wins.
    return patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace')).map(stripDirectives);
  }
  const { key, elem } = how;
  if (patch.some((p) => isObject(p) && p['$patch'] === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p['$patch'] === 'replace')).map(stripDirectives);
  }
  const out: unknown[] = target.map((t) => t);
  for (const p of patch) {
    if (!isObject(p)) continue;
    const idx = out.findIndex((t) => isObject(t) && t[key] === p[key]);
    if (p['$patch'] === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = smpObject(out[idx] as JsonObject, p, elem);
    else out.push(stripDirectives(p));
  }
  if (Array.isArray(order)) {
    const pos = (x: unknown) => {
      const i = order.findIndex((o) => isObject(o) && isObject(x) && o[key] === x[key]);
      return i < 0 ? Number.MAX_SAFE_INTEGER : i;
    };
    out.sort((a, b) => pos(a) - pos(b));
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v))
    if (!k.startsWith('$')) setKey(out, k, stripDirectives(x));
  return out;
}

/** Structural equality of JSON values (key order does not matter). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as JsonObject)[k], (b as JsonObject)[k])) return false;
  }
  return true;
}
