/**
 * Opaque CEL values (cel-go's custom types, such as optional and Quantity) for cel-es, which
 * hosts only CEL's own types: a map holding the value under one reserved key, so that two values
 * of the type compare equal exactly when their contents do, and methods declared on maps can tell
 * the type's values from ordinary maps.
 */
import type { CelMap, CelValue } from '@bufbuild/cel';
import { CelScalar, celMap, isCelMap, mapType } from '@bufbuild/cel';

/** The CEL type methods of opaque values are declared on. */
export const OPAQUE = mapType(CelScalar.DYN, CelScalar.DYN);

export interface OpaqueType<T> {
  wrap(v: T): CelMap;
  /** The content of a value of this type, or undefined for anything else. */
  unwrap(v: CelValue): { value: T } | undefined;
}

export function opaqueType<T>(name: string): OpaqueType<T> {
  const key = `\u0000${name}`;
  return {
    wrap: (v) => celMap(new Map([[key, v as CelValue]])),
    unwrap: (v) =>
      isCelMap(v) && v.size === 1 && v.has(key) ? { value: v.get(key) as T } : undefined,
  };
}

/** The content of v when it has type t; otherwise cel-go's overload error. */
export function expect<T>(t: OpaqueType<T>, v: CelValue): T {
  const u = t.unwrap(v);
  if (!u) throw new Error('no such overload');
  return u.value;
}
