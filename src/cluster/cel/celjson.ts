/**
 * CEL values back to JSON, as a mutation's result is marshalled (cel-go's ConvertToNative into
 * structpb.Value): maps with string keys as objects, lists as arrays, ints and doubles as
 * numbers, bytes as base64; anything else (a type, a timestamp) does not marshal. Also
 * `jsonpatch.escapeKey` (k8s.io/apiserver/pkg/cel/library/jsonpatch.go), which a JSONPatch
 * mutation uses to build a path from a key.
 */

import { CelScalar, celFunc, isCelList, isCelMap, isCelUint } from '@bufbuild/cel';

export class NotJson extends Error {}

export function celToJson(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (isCelUint(v)) return Number(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (isCelList(v)) return [...v].map((x) => celToJson(x));
  if (isCelMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) {
      if (typeof k !== 'string') throw new NotJson(`map key ${String(k)} is not a string`);
      out[k] = celToJson(x);
    }
    return out;
  }
  throw new NotJson(`unsupported type ${typeof v}`);
}

/** strings.NewReplacer("/", "~1", "~", "~0") */
const escapeKey = (k: string) => k.replace(/[~/]/g, (c) => (c === '/' ? '~1' : '~0'));

export const jsonPatchLibrary = [
  celFunc('jsonpatch.escapeKey', [CelScalar.STRING], CelScalar.STRING, (k: string) => escapeKey(k)),
];
