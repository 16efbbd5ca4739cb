/**
 * An object in the shape kube-apiserver's decoder gives it: json.Unmarshal into the kind's Go type
 * and json.Marshal back (govalue.ts). A struct held by value is always there and always encoded
 * (`omitempty` never omits a struct: a container's `resources: {}`, a Deployment's
 * `strategy: {}`), a field without omitempty is written at its zero value (an Event's
 * `reportingComponent: ""`), and the fields come in the type's order. Defaulting runs on this
 * shape, as the scheme's defaulters run on the decoded Go value.
 */
import { kindShape } from './apigraph';
import { isObject } from '../apimachinery/patch';
import { fromJson, toJson } from './govalue';

type Obj = Record<string, unknown>;

/**
 * Makes `target` hold exactly what `source` holds, keeping `target` itself and every object
 * below it that the source still has: a map two fields share (a Job's labels, defaulted to its
 * template's map itself, as Go shares it) stays one map.
 */
function replaceIn(target: Obj, source: Obj, depth = 0): void {
  const before: Obj = { ...target };
  // The object's fields and its top-level objects' (metadata, spec, data) keep their order, as
  // they always have; deeper down the fields take the source's (the type's) order.
  const keepOrder = depth <= 1;
  for (const k of Object.keys(target)) if (!keepOrder || !(k in source)) delete target[k];
  for (const [k, v] of Object.entries(source)) {
    const was = before[k];
    if (isObject(was) && isObject(v) && was !== v) {
      replaceIn(was, v, depth + 1);
      target[k] = was;
    } else target[k] = v;
  }
}

/**
 * Reshapes a built-in object of `apiVersion` `kind` in place; a kind without a Go type is left.
 * The object and the objects below it stay the same objects, as callers hold them.
 */
export function goShape(obj: Obj, apiVersion: string, kind: string): void {
  const shape = kindShape(apiVersion, kind);
  if (!shape) return;
  replaceIn(obj, toJson(shape, fromJson(shape, obj)) as Obj);
}

/** The zero value of a built-in kind as JSON, a fresh object the caller may change. */
export function goZero(apiVersion: string, kind: string): Obj | undefined {
  const obj: Obj = { apiVersion, kind, metadata: {} };
  if (!kindShape(apiVersion, kind)) return undefined;
  goShape(obj, apiVersion, kind);
  return obj;
}

const sharedZeros = new Map<string, Readonly<Obj> | undefined>();

/**
 * The zero value of a built-in kind, computed once per kind and frozen: what every create's field
 * manager compares with (reshaping it per write cost a tenth of a create).
 */
export function sharedGoZero(apiVersion: string, kind: string): Readonly<Obj> | undefined {
  const key = `${apiVersion}/${kind}`;
  if (!sharedZeros.has(key)) {
    const zero = goZero(apiVersion, kind);
    sharedZeros.set(key, zero && deepFreeze(zero));
  }
  return sharedZeros.get(key);
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
