/**
 * A built-in object as the Go value it is inside kube-apiserver, between its JSON and its
 * protobuf: decoding JSON into the Go struct and marshalling it back follow encoding/json's rules
 * (omitempty, omitzero, nil versus empty, zero values written out, map keys sorted) and the
 * hand-written marshallers of the special types (metav1.Time, Quantity, IntOrString, ...).
 *
 * A Go value here: `undefined` is the type's zero value; a pointer is `{ p: elem }`; a struct is
 * the array of its fields' values (by FieldInfo.index); a map is a Map; []byte is a Uint8Array;
 * a Time is `{ s: seconds, n: nanos }`; a Quantity is its string.
 */
import type { Shape, StructInfo } from './apigraph';

export type GoValue = unknown;
export type GoStructValue = GoValue[];
export interface GoPointer {
  p: GoValue;
}
export interface GoTime {
  s: number;
  n: number;
}

type Json = Record<string, unknown>;

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** A field of a struct, by its Go name (the special types' fields). */
export function field(t: StructInfo, goName: string): number {
  const f = t.fields.find((x) => x.goName === goName);
  if (!f) throw new Error(`${t.name} has no field ${goName}`);
  return f.index;
}

// ---- Times -------------------------------------------------------------------------------------

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** time.Parse(RFC3339) as metav1.Time's UnmarshalJSON does it: seconds since the epoch, nanos. */
export function parseGoTime(s: string): GoTime {
  const m = RFC3339.exec(s);
  if (!m)
    throw new Error(
      `parsing time ${JSON.stringify(s)} as "2006-01-02T15:04:05Z07:00": cannot parse`,
    );
  const [, y, mo, d, h, mi, sec, frac = '', zone] = m;
  // setUTCFullYear, unlike Date.UTC, takes years 0-99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(+y, +mo - 1, +d);
  date.setUTCHours(+h, +mi, +sec, 0);
  let seconds = date.getTime() / 1000;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1;
    seconds -= sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  return { s: seconds, n: Number(frac.slice(0, 9).padEnd(9, '0')) };
}

/** metav1.Time's MarshalJSON (seconds) or MicroTime's (microseconds), in UTC. */
export function formatGoTime(t: GoTime, micro: boolean): string {
  const d = new Date(t.s * 1000);
  const iso = d.toISOString().replace(/\.\d{3}Z$/, '');
  // toISOString writes years past 9999 with a sign; Go's marshaller refuses them.
  return micro ? `${iso}.${String(Math.floor(t.n / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

// ---- JSON → Go --------------------------------------------------------------------------------

/** An object of the store that does not fit its Go type: the encoder cannot write it. */
export class GoValueError extends Error {}

function expect(cond: boolean, shape: Shape, j: unknown): void {
  if (!cond)
    throw new GoValueError(
      `json: cannot unmarshal ${Array.isArray(j) ? 'array' : typeof j} into Go value of type ${shape.name}`,
    );
}

/** json.Unmarshal of a decoded JSON value into a value of `shape`. */
export function fromJson(shape: Shape, j: unknown): GoValue {
  if (j === null || j === undefined) return undefined;
  switch (shape.k) {
    case 'scalar':
      if (shape.s === 'string') {
        expect(typeof j === 'string', shape, j);
        return j === '' ? undefined : j;
      }
      if (shape.s === 'bool') {
        expect(typeof j === 'boolean', shape, j);
        return j || undefined;
      }
      expect(typeof j === 'number', shape, j);
      return j === 0 ? undefined : j;
    case 'bytes':
      expect(typeof j === 'string', shape, j);
      return new Uint8Array(Buffer.from(j as string, 'base64'));
    case 'any':
      return j;
    case 'ptr': {
      const v = fromJson(shape.elem, j);
      return { p: v } satisfies GoPointer;
    }
    case 'slice':
      expect(Array.isArray(j), shape, j);
      return (j as unknown[]).map((x) => fromJson(shape.elem, x));
    case 'map': {
      expect(typeof j === 'object' && !Array.isArray(j), shape, j);
      const m = new Map<string, GoValue>();
      for (const [k, v] of Object.entries(j as Json)) m.set(k, fromJson(shape.elem, v));
      return m;
    }
    case 'struct':
      expect(typeof j === 'object' && !Array.isArray(j), shape, j);
      return structFromJson(shape.t, j as Json);
    case 'special':
      return specialFromJson(shape, j);
  }
}

/** The fields of `t` from a JSON object; inlined structs read the same object. */
export function structFromJson(t: StructInfo, obj: Json): GoStructValue {
  const vals: GoStructValue = [];
  for (const f of t.fields) {
    if (f.inline) {
      const inner = f.shape.k === 'ptr' ? f.shape.elem : f.shape;
      if (inner.k === 'struct') {
        const v = structFromJson(inner.t, obj);
        vals[f.index] = f.shape.k === 'ptr' ? { p: v } : v;
      }
      continue;
    }
    if (f.json === '-') continue;
    const j = obj[f.json];
    if (j !== undefined) vals[f.index] = fromJson(f.shape, j);
  }
  return vals;
}

function rawOf(j: unknown): Uint8Array {
  return utf8Encoder.encode(JSON.stringify(j));
}

function specialFromJson(shape: Extract<Shape, { k: 'special' }>, j: unknown): GoValue {
  const t = shape.t;
  const vals: GoStructValue = [];
  switch (shape.s) {
    case 'time':
    case 'microtime': {
      expect(typeof j === 'string', shape, j);
      const gt = parseGoTime(j as string);
      // MicroTime keeps microseconds (its UnmarshalJSON parses RFC3339Micro); Time whole seconds.
      return { s: gt.s, n: shape.s === 'microtime' ? Math.floor(gt.n / 1000) * 1000 : gt.n };
    }
    case 'quantity':
      expect(typeof j === 'string' || typeof j === 'number', shape, j);
      return String(j);
    case 'duration':
      expect(typeof j === 'string', shape, j);
      vals[field(t, 'Duration')] = parseGoDuration(j as string);
      return vals;
    case 'intorstring':
      if (typeof j === 'string') {
        vals[field(t, 'Type')] = 1;
        vals[field(t, 'StrVal')] = j || undefined;
      } else {
        expect(typeof j === 'number', shape, j);
        vals[field(t, 'IntVal')] = j || undefined;
      }
      return vals;
    case 'rawextension':
    case 'rawjson':
    case 'fieldsv1':
      vals[field(t, 'Raw')] = rawOf(j);
      return vals;
    case 'schemaorbool': {
      const schema = t.fields[field(t, 'Schema')].shape;
      if (typeof j === 'boolean') vals[field(t, 'Allows')] = j || undefined;
      else {
        vals[field(t, 'Allows')] = true;
        vals[field(t, 'Schema')] = fromJson(schema, j);
      }
      return vals;
    }
    case 'schemaorarray':
      if (Array.isArray(j))
        vals[field(t, 'JSONSchemas')] = fromJson(t.fields[field(t, 'JSONSchemas')].shape, j);
      else vals[field(t, 'Schema')] = fromJson(t.fields[field(t, 'Schema')].shape, j);
      return vals;
    case 'schemaorstringarray':
      if (Array.isArray(j))
        vals[field(t, 'Property')] = fromJson(t.fields[field(t, 'Property')].shape, j);
      else vals[field(t, 'Schema')] = fromJson(t.fields[field(t, 'Schema')].shape, j);
      return vals;
  }
}

// ---- Go → JSON --------------------------------------------------------------------------------

/** encoding/json's isEmptyValue, which omitempty asks: structs are never empty. */
function isEmpty(shape: Shape, v: GoValue): boolean {
  if (v === undefined) return shape.k !== 'struct' && shape.k !== 'special';
  switch (shape.k) {
    case 'bytes':
    case 'slice':
      return (v as ArrayLike<unknown>).length === 0;
    case 'map':
      return (v as Map<string, GoValue>).size === 0;
    default:
      return false;
  }
}

/** What omitzero asks: the type's IsZero method if it has one, else the zero value. */
function isZero(shape: Shape, v: GoValue): boolean {
  if (v === undefined) return true;
  if (shape.k === 'struct')
    return (v as GoStructValue).every((x, i) => isZero(shape.t.fields[i].shape, x));
  if (shape.k === 'special' && shape.s === 'quantity')
    return /^[+-]?0*(\.0*)?([a-zA-Z]+|[eE][+-]?\d+)?$/.test(v as string);
  return false;
}

function zeroScalar(shape: Extract<Shape, { k: 'scalar' }>): unknown {
  return shape.s === 'string' ? '' : shape.s === 'bool' ? false : 0;
}

/** json.Marshal of a Go value of `shape`. */
export function toJson(shape: Shape, v: GoValue): unknown {
  switch (shape.k) {
    case 'scalar':
      return v === undefined ? zeroScalar(shape) : v;
    case 'bytes':
      return v === undefined ? null : Buffer.from(v as Uint8Array).toString('base64');
    case 'any':
      return v ?? null;
    case 'ptr':
      return v === undefined ? null : toJson(shape.elem, (v as GoPointer).p);
    case 'slice':
      return v === undefined ? null : (v as GoValue[]).map((x) => toJson(shape.elem, x));
    case 'map': {
      if (v === undefined) return null;
      const m = v as Map<string, GoValue>;
      const out: Json = {};
      for (const k of [...m.keys()].sort()) out[k] = toJson(shape.elem, m.get(k));
      return out;
    }
    case 'struct':
      return structToJson(shape.t, (v as GoStructValue | undefined) ?? [], {});
    case 'special':
      return specialToJson(shape, v);
  }
}

/** The JSON object of a struct value, into `out` (inlined structs write their fields there). */
export function structToJson(t: StructInfo, vals: GoStructValue, out: Json): Json {
  for (const f of t.fields) {
    const v = vals[f.index];
    if (f.inline) {
      if (f.shape.k === 'struct')
        structToJson(f.shape.t, (v as GoStructValue | undefined) ?? [], out);
      else if (f.shape.k === 'ptr' && f.shape.elem.k === 'struct' && v !== undefined)
        structToJson(f.shape.elem.t, ((v as GoPointer).p as GoStructValue | undefined) ?? [], out);
      continue;
    }
    if (f.json === '-') continue;
    if (f.omitEmpty && isEmpty(f.shape, v)) continue;
    if (f.omitZero && isZero(f.shape, v)) continue;
    // encoding/json: a field of the outer struct wins over an inlined one of the same name.
    out[f.json] = toJson(f.shape, v);
  }
  return out;
}

function rawJson(bytes: GoValue, what: string): unknown {
  if (bytes === undefined || (bytes as Uint8Array).length === 0) return null;
  const text = utf8.decode(bytes as Uint8Array);
  try {
    return JSON.parse(text);
  } catch {
    throw new GoValueError(
      `json: error calling MarshalJSON for type ${what}: invalid character in raw JSON`,
    );
  }
}

function specialToJson(shape: Extract<Shape, { k: 'special' }>, v: GoValue): unknown {
  const t = shape.t;
  const vals = (v as GoStructValue | undefined) ?? [];
  switch (shape.s) {
    case 'time':
    case 'microtime':
      return v === undefined ? null : formatGoTime(v as GoTime, shape.s === 'microtime');
    case 'quantity':
      return v === undefined ? '0' : v;
    case 'duration':
      return formatGoDuration((vals[field(t, 'Duration')] as number | undefined) ?? 0);
    case 'intorstring':
      return vals[field(t, 'Type')] === 1
        ? ((vals[field(t, 'StrVal')] as string | undefined) ?? '')
        : ((vals[field(t, 'IntVal')] as number | undefined) ?? 0);
    case 'rawextension':
    case 'rawjson':
    case 'fieldsv1':
      return rawJson(vals[field(t, 'Raw')], shape.name);
    case 'schemaorbool': {
      const schema = vals[field(t, 'Schema')];
      if (schema !== undefined) return toJson(t.fields[field(t, 'Schema')].shape, schema);
      return vals[field(t, 'Allows')] === true;
    }
    case 'schemaorarray': {
      const list = vals[field(t, 'JSONSchemas')] as GoValue[] | undefined;
      if (list?.length) return toJson(t.fields[field(t, 'JSONSchemas')].shape, list);
      return toJson(t.fields[field(t, 'Schema')].shape, vals[field(t, 'Schema')]);
    }
    case 'schemaorstringarray': {
      const list = vals[field(t, 'Property')] as GoValue[] | undefined;
      if (list?.length) return toJson(t.fields[field(t, 'Property')].shape, list);
      const schema = vals[field(t, 'Schema')];
      return schema === undefined ? null : toJson(t.fields[field(t, 'Schema')].shape, schema);
    }
  }
}

// ---- time.Duration ------------------------------------------------------------------------------

const UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** time.ParseDuration, as metav1.Duration's UnmarshalJSON uses it. */
export function parseGoDuration(s: string): number {
  const m = /^([+-])?((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (s === '0') return 0;
  if (!m) throw new GoValueError(`time: invalid duration ${JSON.stringify(s)}`);
  let total = 0;
  for (const part of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g))
    total += Number(part[1]) * UNITS[part[2]];
  return Math.round(s.startsWith('-') ? -total : total);
}

/** time.Duration.String. */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    const [unit, scale] = u < 1e3 ? ['ns', 1] : u < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    out = `${trimFraction(u / scale)}${unit}`;
  } else {
    const h = Math.floor(u / 3600e9);
    u -= h * 3600e9;
    const m = Math.floor(u / 60e9);
    u -= m * 60e9;
    out = `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${trimFraction(u / 1e9)}s`;
  }
  return neg ? `-${out}` : out;
}

function trimFraction(x: number): string {
  return String(Number(x.toFixed(9)));
}
