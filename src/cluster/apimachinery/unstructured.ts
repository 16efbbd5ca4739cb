/**
 * Reading and defaulting plain JSON objects, as apimachinery's unstructured helpers do for the
 * controllers and strategies that work on stored objects without a typed view of them.
 */
import { isObject } from './patch';

type Obj = Record<string, unknown>;

/** The value as an object to read from: itself when it is one, else an empty object. */
export function rec(v: unknown): Obj {
  return isObject(v) ? v : {};
}

/** The value as a string to read: itself when it is one, else empty (Go's zero string). */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The value as a list to read: itself when it is one, else empty (a nil slice). */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** `o[k]` as an object, created empty when it is missing or not one. */
export function ensure(o: Obj, k: string): Obj {
  if (!isObject(o[k])) o[k] = {};
  return o[k] as Obj;
}

/** Sets `o[k]` to `v` unless it has a value (undefined and null have none), as SetDefaults_* do. */
export function setDefault(o: Obj, k: string, v: unknown): void {
  if (o[k] === undefined || o[k] === null) o[k] = v;
}

/** The Go type encoding/json decodes a JSON value into, as `%T` prints it (unstructured). */
export function goJsonType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
