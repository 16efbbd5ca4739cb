/**
 * Objects of built-in kinds made from the generated API graph, for the protobuf tests: an
 * example of a kind fills every field that is on the wire; a random one fills some of them with
 * random values. Both are valid JSON for the Go type (what json.Unmarshal accepts), so Go's own
 * Marshal can judge them. A recursive type (JSONSchemaProps) is filled to one level.
 */
import type { Shape, StructInfo } from '../../src/cluster/api/apigraph';
import { kindStruct } from '../../src/cluster/api/apigraph';

type Json = Record<string, unknown>;

/** A seeded generator, so a failing random object can be made again. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Maker {
  /** Whether to fill this field (always, for an example). */
  fill(): boolean;
  pick<T>(xs: readonly T[]): T;
  int(max: number): number;
}

const everything: Maker = { fill: () => true, pick: (xs) => xs[0], int: () => 7 };

function randomMaker(next: () => number): Maker {
  return {
    fill: () => next() < 0.5,
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    int: (max) => Math.floor(next() * max) - Math.floor(max / 4),
  };
}

const QUANTITIES = ['1500m', '1', '2Gi', '100Mi', '1k', '0'] as const;
const TIMES = ['2024-01-02T03:04:05Z', '1999-12-31T23:59:59Z', '1970-01-01T00:00:00Z'] as const;
const MICROTIMES = ['2024-01-02T03:04:05.123456Z', '2030-06-07T08:09:10.000001Z'] as const;
const STRINGS = ['a', 'memcached', 'ünïcode ✓', '', 'with "quotes"'] as const;

function value(shape: Shape, m: Maker, path: string, seen: readonly string[]): unknown {
  switch (shape.k) {
    case 'scalar':
      switch (shape.s) {
        case 'string':
          return m === everything ? `v-${path}` : m.pick(STRINGS);
        case 'bool':
          return m === everything ? true : m.pick([true, false]);
        case 'float32':
        case 'float64':
          return m.pick([1.5, -2.25, 0, 1e10]);
        case 'uint8':
        case 'uint16':
        case 'uint32':
        case 'uint64':
        case 'uint':
          return Math.abs(m.int(200));
        case 'int64':
        case 'int':
          return m === everything ? 1234567890123 : m.int(2 ** 40);
        default:
          return m.int(100000);
      }
    case 'bytes':
      return Buffer.from(`bytes of ${path}`).toString('base64');
    case 'any':
      return undefined;
    case 'ptr':
      return value(shape.elem, m, path, seen);
    case 'slice': {
      const n = m === everything ? 2 : m.int(4) + 1;
      const items = Array.from({ length: Math.max(n, 0) }, (_, i) =>
        value(shape.elem, m, `${path}[${i}]`, seen),
      ).filter((x) => x !== undefined);
      // A list cut short by the recursion bound is left out rather than sent empty.
      return items.length || m !== everything ? items : undefined;
    }
    case 'map': {
      const out: Json = {};
      for (const k of m === everything ? ['k1', 'k2'] : ['a', 'b', 'c'].filter(() => m.fill())) {
        const v = value(shape.elem, m, `${path}.${k}`, seen);
        if (v !== undefined) out[k] = v;
      }
      return Object.keys(out).length || m !== everything ? out : undefined;
    }
    case 'struct':
      if (seen.filter((s) => s === shape.t.id).length >= 2) return undefined;
      return struct(shape.t, m, path, [...seen, shape.t.id]);
    case 'special':
      switch (shape.s) {
        case 'time':
          return m.pick(TIMES);
        case 'microtime':
          return m.pick(MICROTIMES);
        case 'quantity':
          return m.pick(QUANTITIES);
        case 'duration':
          return m.pick(['1m30s', '2h0m0s', '500ms']);
        case 'intorstring':
          return m.pick([3, '25%']);
        case 'rawextension':
          return m.pick([{ a: 1, b: ['x'] }, { kind: 'K' }]);
        case 'fieldsv1':
          return { 'f:metadata': { 'f:labels': {} } };
        case 'rawjson':
          return m.pick([{ x: [1, 'y'] }, 'a string', 12]);
        case 'schemaorbool':
        case 'schemaorarray':
          return m.pick([{ type: 'string' }]);
        case 'schemaorstringarray':
          return m.pick([['a', 'b']]);
      }
  }
}

function struct(t: StructInfo, m: Maker, path: string, seen: readonly string[]): Json {
  const out: Json = {};
  for (const f of t.fields) {
    // Only what is on the wire: a field without a protobuf number cannot come back.
    if (f.number === undefined) continue;
    if (f.inline) {
      const inner = f.shape.k === 'ptr' ? f.shape.elem : f.shape;
      if (inner.k === 'struct') Object.assign(out, struct(inner.t, m, path, seen));
      continue;
    }
    if (f.json === '-' || !m.fill()) continue;
    const v = value(f.shape, m, `${path}.${f.json}`, seen);
    if (v !== undefined) out[f.json] = v;
  }
  return out;
}

function top(apiVersion: string, kind: string, m: Maker): Json {
  const t = kindStruct(apiVersion, kind);
  if (!t) throw new Error(`no kind ${apiVersion}/${kind}`);
  return { kind, apiVersion, ...struct(t, m, kind, [t.id]) };
}

/** An object of the kind with every field on the wire filled. */
export function exampleOf(apiVersion: string, kind: string): Json {
  return top(apiVersion, kind, everything);
}

/** An object of the kind with a random selection of fields, from `next`. */
export function randomOf(apiVersion: string, kind: string, next: () => number): Json {
  return top(apiVersion, kind, randomMaker(next));
}
