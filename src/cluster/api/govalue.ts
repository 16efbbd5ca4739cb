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
import type { FieldInfo, Shape, StructInfo } from './apigraph';

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

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date of a day counted from 1970-01-01 (civil_from_days). */
function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * The form the apiserver writes every Time in (`2006-01-02T15:04:05Z`), read without a regex or a
 * Date: most times a client sends are this; anything else (fractions, offsets, out-of-range
 * fields) returns undefined and takes the general path.
 */
function parseUtcSeconds(s: string): GoTime | undefined {
  if (s.length !== 20 || s[4] !== '-' || s[7] !== '-' || s[13] !== ':' || s[16] !== ':')
    return undefined;
  if ((s[10] !== 'T' && s[10] !== 't') || (s[19] !== 'Z' && s[19] !== 'z')) return undefined;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const h = digits(s, 11, 13);
  const mi = digits(s, 14, 16);
  const sec = digits(s, 17, 19);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 28 || h < 0 || h > 23 || mi < 0 || mi > 59)
    return undefined;
  if (sec < 0 || sec > 59) return undefined;
  return { s: daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec, n: 0 };
}

/** time.Parse(RFC3339) as metav1.Time's UnmarshalJSON does it: seconds since the epoch, nanos. */
export function parseGoTime(s: string): GoTime {
  const fast = parseUtcSeconds(s);
  if (fast) return fast;
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
  const days = Math.floor(t.s / 86400);
  const [y, mo, d] = civilFromDays(days);
  if (y >= 0 && y <= 9999 && Number.isInteger(t.s)) {
    const rest = t.s - days * 86400;
    const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(Math.floor(rest / 3600), 2)}:${pad(Math.floor(rest / 60) % 60, 2)}:${pad(rest % 60, 2)}`;
    return micro ? `${date}.${pad(Math.floor(t.n / 1000), 6)}Z` : `${date}Z`;
  }
  return formatDate(t, micro);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** formatGoTime through Date, for the years the fast path leaves out. */
function formatDate(t: GoTime, micro: boolean): string {
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

/** json.Unmarshal of one decoded JSON value (not null) into a value of a shape. */
type Converter = (j: unknown) => GoValue;

const converters = new WeakMap<Shape, Converter>();

/** json.Unmarshal of a decoded JSON value into a value of `shape`. */
export function fromJson(shape: Shape, j: unknown): GoValue {
  if (j === null || j === undefined) return undefined;
  return converterOf(shape)(j);
}

/** A shape's converter, compiled once (a struct's on first use: types refer to themselves). */
function converterOf(shape: Shape): Converter {
  let c = converters.get(shape);
  if (!c) {
    c = compileConverter(shape);
    converters.set(shape, c);
  }
  return c;
}

function compileConverter(shape: Shape): Converter {
  switch (shape.k) {
    case 'scalar':
      if (shape.s === 'string')
        return (j) => {
          expect(typeof j === 'string', shape, j);
          return j === '' ? undefined : j;
        };
      if (shape.s === 'bool')
        return (j) => {
          expect(typeof j === 'boolean', shape, j);
          return j || undefined;
        };
      return (j) => {
        expect(typeof j === 'number', shape, j);
        return j === 0 ? undefined : j;
      };
    case 'bytes':
      return (j) => {
        expect(typeof j === 'string', shape, j);
        return new Uint8Array(Buffer.from(j as string, 'base64'));
      };
    case 'any':
      return (j) => j;
    case 'ptr': {
      const elem = shape.elem;
      return (j) => ({ p: fromJson(elem, j) }) satisfies GoPointer;
    }
    case 'slice': {
      const elem = shape.elem;
      return (j) => {
        expect(Array.isArray(j), shape, j);
        return (j as unknown[]).map((x) => fromJson(elem, x));
      };
    }
    case 'map': {
      const elem = shape.elem;
      return (j) => {
        expect(typeof j === 'object' && !Array.isArray(j), shape, j);
        const m = new Map<string, GoValue>();
        for (const [k, v] of Object.entries(j as Json)) m.set(k, fromJson(elem, v));
        return m;
      };
    }
    case 'struct': {
      const t = shape.t;
      return (j) => {
        expect(typeof j === 'object' && !Array.isArray(j), shape, j);
        return structFromJson(t, j as Json);
      };
    }
    case 'special':
      return (j) => specialFromJson(shape, j);
  }
}

/** Sets one field (found by its JSON name) of a struct value from its JSON. */
type Setter = (vals: GoStructValue, j: unknown) => void;

/** How a struct reads a JSON object: a setter per JSON name, and its inlined structs' values. */
interface JsonReadPlan {
  setters: Map<string, Setter>;
  /** The inlined structs, whose values exist even when none of their fields is in the JSON. */
  inline: Array<{ index: number; ptr: boolean }>;
}

const readPlans = new WeakMap<StructInfo, JsonReadPlan>();

function readPlanOf(t: StructInfo): JsonReadPlan {
  let plan = readPlans.get(t);
  if (plan) return plan;
  plan = { setters: new Map(), inline: [] };
  readPlans.set(t, plan);
  for (const f of t.fields) {
    if (f.inline || f.json === '-') continue;
    const i = f.index;
    const shape = f.shape;
    // encoding/json: a field of the outer struct wins over an inlined one of the same name.
    plan.setters.set(f.json, (vals, j) => {
      if (j !== null) vals[i] = converterOf(shape)(j);
    });
  }
  for (const f of t.fields) {
    const ptr = f.shape.k === 'ptr';
    const inner = ptr ? (f.shape as { elem: Shape }).elem : f.shape;
    if (!f.inline || inner.k !== 'struct') continue;
    const i = f.index;
    plan.inline.push({ index: i, ptr });
    for (const [name, set] of readPlanOf(inner.t).setters) {
      if (plan.setters.has(name)) continue;
      plan.setters.set(name, (vals, j) => {
        const v = vals[i];
        set((ptr ? (v as GoPointer).p : v) as GoStructValue, j);
      });
    }
  }
  return plan;
}

/** The fields of `t` from a JSON object; inlined structs read the same object. */
export function structFromJson(t: StructInfo, obj: Json): GoStructValue {
  const plan = readPlanOf(t);
  const vals: GoStructValue = [];
  for (const { index, ptr } of plan.inline) {
    const v = structFromJson(inlineStruct(t, index), {});
    vals[index] = ptr ? { p: v } : v;
  }
  for (const k in obj) {
    const set = plan.setters.get(k);
    if (set === undefined) continue;
    const j = obj[k];
    if (j !== undefined) set(vals, j);
  }
  return vals;
}

function inlineStruct(t: StructInfo, index: number): StructInfo {
  const shape = t.fields[index].shape;
  return ((shape.k === 'ptr' ? shape.elem : shape) as { t: StructInfo }).t;
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

/** json.Marshal of a Go value of a shape. */
type Encoder = (v: GoValue) => unknown;

const encoders = new WeakMap<Shape, Encoder>();

/** json.Marshal of a Go value of `shape`. */
export function toJson(shape: Shape, v: GoValue): unknown {
  return encoderOf(shape)(v);
}

function encoderOf(shape: Shape): Encoder {
  let e = encoders.get(shape);
  if (!e) {
    e = compileEncoder(shape);
    encoders.set(shape, e);
  }
  return e;
}

function compileEncoder(shape: Shape): Encoder {
  switch (shape.k) {
    case 'scalar': {
      const zero = zeroScalar(shape);
      return (v) => (v === undefined ? zero : v);
    }
    case 'bytes':
      return (v) => (v === undefined ? null : Buffer.from(v as Uint8Array).toString('base64'));
    case 'any':
      return (v) => v ?? null;
    case 'ptr': {
      const elem = shape.elem;
      return (v) => (v === undefined ? null : toJson(elem, (v as GoPointer).p));
    }
    case 'slice': {
      const elem = shape.elem;
      return (v) => (v === undefined ? null : (v as GoValue[]).map((x) => toJson(elem, x)));
    }
    case 'map': {
      const elem = shape.elem;
      return (v) => {
        if (v === undefined) return null;
        const m = v as Map<string, GoValue>;
        const out: Json = {};
        for (const k of [...m.keys()].sort()) out[k] = toJson(elem, m.get(k));
        return out;
      };
    }
    case 'struct': {
      const t = shape.t;
      return (v) => structToJson(t, (v as GoStructValue | undefined) ?? [], {});
    }
    case 'special':
      return (v) => specialToJson(shape, v);
  }
}

/** Writes one field of a struct value into its JSON object, or leaves it out. */
type Emitter = (vals: GoStructValue, out: Json) => void;

const writePlans = new WeakMap<StructInfo, Emitter[]>();

/** encoding/json's isEmptyValue for values of one shape, which omitempty asks. */
function emptyTest(shape: Shape): (v: GoValue) => boolean {
  switch (shape.k) {
    case 'struct':
    case 'special':
      return () => false;
    case 'bytes':
    case 'slice':
      return (v) => v === undefined || (v as ArrayLike<unknown>).length === 0;
    case 'map':
      return (v) => v === undefined || (v as Map<string, GoValue>).size === 0;
    default:
      return (v) => v === undefined;
  }
}

function emitter(f: FieldInfo): Emitter | undefined {
  const i = f.index;
  const shape = f.shape;
  if (f.inline) {
    if (shape.k === 'struct') {
      const t = shape.t;
      return (vals, out) => void structToJson(t, (vals[i] as GoStructValue | undefined) ?? [], out);
    }
    if (shape.k === 'ptr' && shape.elem.k === 'struct') {
      const t = shape.elem.t;
      return (vals, out) => {
        const v = vals[i];
        if (v !== undefined)
          structToJson(t, ((v as GoPointer).p as GoStructValue | undefined) ?? [], out);
      };
    }
    return undefined;
  }
  if (f.json === '-') return undefined;
  const name = f.json;
  const empty = f.omitEmpty ? emptyTest(shape) : undefined;
  const zero = f.omitZero;
  return (vals, out) => {
    const v = vals[i];
    if (empty?.(v)) return;
    if (zero && isZero(shape, v)) return;
    // encoding/json: a field of the outer struct wins over an inlined one of the same name.
    out[name] = encoderOf(shape)(v);
  };
}

/** The JSON object of a struct value, into `out` (inlined structs write their fields there). */
export function structToJson(t: StructInfo, vals: GoStructValue, out: Json): Json {
  let plan = writePlans.get(t);
  if (!plan) {
    plan = t.fields.map(emitter).filter((e): e is Emitter => e !== undefined);
    writePlans.set(t, plan);
  }
  for (let k = 0; k < plan.length; k++) plan[k](vals, out);
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
