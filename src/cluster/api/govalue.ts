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
import { FunctionSource, compiledPer, literal } from './jsgen';

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

/**
 * A map's keys in Go's order for JSON and protobuf (sorted): as they are when already sorted,
 * which a map read from the wire is (gogo writes its entries sorted), else sorted.
 */
export function sortedKeys(m: Map<string, unknown>): Iterable<string> {
  let prev: string | undefined;
  for (const k of m.keys()) {
    if (prev !== undefined && k < prev) return [...m.keys()].sort();
    prev = k;
  }
  return m.keys();
}

/** Whether keys are in Go's map order (sorted) already, as most maps' keys come. */
export function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i] < keys[i - 1]) return false;
  return true;
}

/** A JSON object's keys in Go's map order (sorted): `Object.keys`, sorted only when it is not. */
export function sortedJsonKeys(o: object): string[] {
  const keys = Object.keys(o);
  return isSorted(keys) ? keys : keys.sort();
}

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

let lastParsed = { text: '', s: 0, n: 0 };
let lastFormatted = { s: NaN, n: NaN, micro: false, text: '' };

/** time.Parse(RFC3339) as metav1.Time's UnmarshalJSON does it: seconds since the epoch, nanos. */
export function parseGoTime(s: string): GoTime {
  // Most times read in a burst of writes are the same second's (creationTimestamp, managedFields).
  if (s === lastParsed.text) return { s: lastParsed.s, n: lastParsed.n };
  const fast = parseUtcSeconds(s);
  if (fast) {
    lastParsed = { text: s, s: fast.s, n: fast.n };
    return fast;
  }
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
  const last = lastFormatted;
  if (t.s === last.s && micro === last.micro && (!micro || t.n === last.n)) return last.text;
  const days = Math.floor(t.s / 86400);
  const [y, mo, d] = civilFromDays(days);
  if (y >= 0 && y <= 9999 && Number.isInteger(t.s)) {
    const rest = t.s - days * 86400;
    const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(Math.floor(rest / 3600), 2)}:${pad(Math.floor(rest / 60) % 60, 2)}:${pad(rest % 60, 2)}`;
    const text = micro ? `${date}.${pad(Math.floor(t.n / 1000), 6)}Z` : `${date}Z`;
    lastFormatted = { s: t.s, n: t.n, micro, text };
    return text;
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

/**
 * fromJson for one shape, its converter looked up on first call rather than per value (the
 * lookup would cost as much as the conversion of a small value).
 */
function lazyFromJson(shape: Shape): Converter {
  let c: Converter | undefined;
  return (j) => (j === null || j === undefined ? undefined : (c ??= converterOf(shape))(j));
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
      const elem = lazyFromJson(shape.elem);
      return (j) => ({ p: elem(j) }) satisfies GoPointer;
    }
    case 'slice': {
      const elem = lazyFromJson(shape.elem);
      return (j) => {
        expect(Array.isArray(j), shape, j);
        const list = j as unknown[];
        const out: GoValue[] = new Array(list.length);
        for (let i = 0; i < list.length; i++) out[i] = elem(list[i]);
        return out;
      };
    }
    case 'map': {
      const elem = lazyFromJson(shape.elem);
      return (j) => {
        expect(typeof j === 'object' && !Array.isArray(j), shape, j);
        const m = new Map<string, GoValue>();
        const o = j as Json;
        for (const k in o) m.set(k, elem(o[k]));
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
      return specialConverter(shape);
  }
}

/** json.Unmarshal of a JSON object into a new value of a struct. */
type StructReader = (obj: Json) => GoStructValue;

const structReaderOf = compiledPer(compileStructReader);

/** Where a JSON name lands: the variable holding the (possibly inlined) struct, and the index. */
interface JsonTarget {
  holder: string;
  field: FieldInfo;
}

/**
 * Declares the values of `t`'s inlined structs (they exist even when none of their fields is in
 * the JSON) and gathers every JSON name `t` reads: its own fields first, then each inlined
 * struct's not already taken (encoding/json: the outer struct's field wins).
 */
function declareInlines(
  src: FunctionSource,
  t: StructInfo,
  holder: string,
  targets: Map<string, JsonTarget>,
): void {
  for (const f of t.fields)
    if (!f.inline && f.json !== '-' && !targets.has(f.json))
      targets.set(f.json, { holder, field: f });
  for (const f of t.fields) {
    const ptr = f.shape.k === 'ptr';
    const inner = ptr ? (f.shape as { elem: Shape }).elem : f.shape;
    if (!f.inline || inner.k !== 'struct') continue;
    const name = `${holder}_${f.index}`;
    src.line(`const ${name} = []; ${holder}[${f.index}] = ${ptr ? `{ p: ${name} }` : name};`);
    declareInlines(src, inner.t, name, targets);
  }
}

/** Converts `j` (a JSON value, not null) to a value of `shape` into `target`, as statements. */
function convertInto(src: FunctionSource, shape: Shape, target: string): string {
  const fail = src.ref((j: unknown) => expect(false, shape, j));
  if (shape.k === 'scalar') {
    const type = shape.s === 'string' ? 'string' : shape.s === 'bool' ? 'boolean' : 'number';
    const zero = JSON.stringify(zeroScalar(shape));
    return `if (typeof j !== '${type}') ${fail}(j); ${target} = j === ${zero} ? undefined : j;`;
  }
  if (shape.k === 'struct')
    return `if (typeof j !== 'object' || Array.isArray(j)) ${fail}(j); ${target} = ${src.ref(structReaderOf(shape.t))}.fn(j);`;
  return `${target} = ${src.ref(converterOf(shape))}(j);`;
}

/**
 * The reader of a struct: the JSON object's keys in their order (the first wrong type is the
 * error, as json.Unmarshal reports it), each to its field; unknown keys and nulls are skipped.
 */
function compileStructReader(t: StructInfo): StructReader {
  const src = new FunctionSource();
  src.line('const vals = [];');
  const targets = new Map<string, JsonTarget>();
  declareInlines(src, t, 'vals', targets);
  src.line('for (const k in obj) {');
  src.line('  const j = obj[k];');
  src.line('  if (j === undefined || j === null) continue;');
  src.line('  switch (k) {');
  for (const [name, { holder, field: f }] of targets)
    src.line(
      `    case ${literal(name)}: ${convertInto(src, f.shape, `${holder}[${f.index}]`)} break;`,
    );
  src.line('  }');
  src.line('}');
  src.line('return vals;');
  return src.compile<StructReader>(['obj']);
}

/** The fields of `t` from a JSON object; inlined structs read the same object. */
export function structFromJson(t: StructInfo, obj: Json): GoStructValue {
  return structReaderOf(t).fn(obj);
}

function rawOf(j: unknown): Uint8Array {
  return utf8Encoder.encode(JSON.stringify(j));
}

/**
 * JSONSchemaPropsOrArray's and OrStringArray's fields: the list form (JSONSchemas, or Property
 * for the string array), taken for a JSON array, and the schema, for anything else.
 */
function eitherOrFields(shape: Extract<Shape, { k: 'special' }>): [number, number] {
  const list = shape.s === 'schemaorarray' ? 'JSONSchemas' : 'Property';
  return [field(shape.t, list), field(shape.t, 'Schema')];
}

/** The converter of a special type, its fields' indices found once. */
function specialConverter(shape: Extract<Shape, { k: 'special' }>): Converter {
  const t = shape.t;
  const at = (goName: string) => field(t, goName);
  const sub = (goName: string) => lazyFromJson(t.fields[at(goName)].shape);
  switch (shape.s) {
    case 'time':
    case 'microtime': {
      const micro = shape.s === 'microtime';
      return (j) => {
        expect(typeof j === 'string', shape, j);
        const gt = parseGoTime(j as string);
        // MicroTime keeps microseconds (its UnmarshalJSON parses RFC3339Micro); Time whole seconds.
        return { s: gt.s, n: micro ? Math.floor(gt.n / 1000) * 1000 : gt.n };
      };
    }
    case 'quantity':
      return (j) => {
        expect(typeof j === 'string' || typeof j === 'number', shape, j);
        return String(j);
      };
    case 'duration': {
      const duration = at('Duration');
      return (j) => {
        expect(typeof j === 'string', shape, j);
        const vals: GoStructValue = [];
        vals[duration] = parseGoDuration(j as string);
        return vals;
      };
    }
    case 'intorstring': {
      const [type, strVal, intVal] = [at('Type'), at('StrVal'), at('IntVal')];
      return (j) => {
        const vals: GoStructValue = [];
        if (typeof j === 'string') {
          vals[type] = 1;
          vals[strVal] = j || undefined;
        } else {
          expect(typeof j === 'number', shape, j);
          vals[intVal] = j || undefined;
        }
        return vals;
      };
    }
    case 'rawextension':
    case 'rawjson':
    case 'fieldsv1': {
      const raw = at('Raw');
      return (j) => {
        const vals: GoStructValue = [];
        vals[raw] = rawOf(j);
        return vals;
      };
    }
    case 'schemaorbool': {
      const [allows, schemaAt, schema] = [at('Allows'), at('Schema'), sub('Schema')];
      return (j) => {
        const vals: GoStructValue = [];
        if (typeof j === 'boolean') vals[allows] = j || undefined;
        else {
          vals[allows] = true;
          vals[schemaAt] = schema(j);
        }
        return vals;
      };
    }
    case 'schemaorarray':
    case 'schemaorstringarray': {
      const [listAt, schemaAt] = eitherOrFields(shape);
      const [list, schema] = [sub(t.fields[listAt].goName), sub('Schema')];
      return (j) => {
        const vals: GoStructValue = [];
        if (Array.isArray(j)) vals[listAt] = list(j);
        else vals[schemaAt] = schema(j);
        return vals;
      };
    }
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

/** toJson for one shape, its encoder looked up on first call rather than per value. */
function lazyToJson(shape: Shape): Encoder {
  let e: Encoder | undefined;
  return (v) => (e ??= encoderOf(shape))(v);
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
      const elem = lazyToJson(shape.elem);
      return (v) => (v === undefined ? null : elem((v as GoPointer).p));
    }
    case 'slice': {
      const elem = lazyToJson(shape.elem);
      return (v) => {
        if (v === undefined) return null;
        const list = v as GoValue[];
        const out: unknown[] = new Array(list.length);
        for (let i = 0; i < list.length; i++) out[i] = elem(list[i]);
        return out;
      };
    }
    case 'map': {
      const elem = lazyToJson(shape.elem);
      return (v) => {
        if (v === undefined) return null;
        const m = v as Map<string, GoValue>;
        const out: Json = {};
        for (const k of sortedKeys(m)) out[k] = elem(m.get(k));
        return out;
      };
    }
    case 'struct': {
      const e = emitterOf(shape.t);
      return (v) => {
        const out: Json = {};
        e.fn((v as GoStructValue | undefined) ?? NO_FIELDS, out);
        return out;
      };
    }
    case 'special':
      return specialEncoder(shape);
  }
}

/** A struct value's JSON fields written into an object (inlined structs write theirs there). */
type StructEmitter = (vals: GoStructValue, out: Json) => void;

const emitterOf = compiledPer(compileEmitter);

/** A struct value that is not there reads as its zero value: no fields set. */
const NO_FIELDS: GoStructValue = Object.freeze([]) as unknown as GoStructValue;

/**
 * encoding/json's isEmptyValue, which omitempty asks, as an expression over `x`: structs are
 * never empty; lists, maps and []byte when nil or of length 0; the rest when nil or zero.
 */
function emptyTest(shape: Shape): string | undefined {
  switch (shape.k) {
    case 'struct':
    case 'special':
      return undefined;
    case 'bytes':
    case 'slice':
      return 'x === undefined || x.length === 0';
    case 'map':
      return 'x === undefined || x.size === 0';
    default:
      return 'x === undefined';
  }
}

/** json.Marshal of `x`, a value of `shape`, as an expression. */
function encodeExpr(src: FunctionSource, shape: Shape): string {
  if (shape.k === 'scalar') return `(x === undefined ? ${JSON.stringify(zeroScalar(shape))} : x)`;
  if (shape.k === 'struct')
    return `${src.ref(emitterOf(shape.t))}.fn(x ?? ${src.ref(NO_FIELDS)}, {})`;
  return `${src.ref(lazyToJson(shape))}(x)`;
}

/**
 * The emitter of a struct: each field in declaration order, as encoding/json writes them,
 * left out when omitempty finds it empty or omitzero zero; an inlined struct's fields in its
 * place (a field of the outer struct set after it wins, as Go's dominance rule has it).
 */
function compileEmitter(t: StructInfo): StructEmitter {
  const src = new FunctionSource();
  src.line('let x;');
  for (const f of t.fields) {
    const line = emitFieldSource(src, f, 'vals');
    if (line) src.line(line);
  }
  src.line('return out;');
  return src.compile<StructEmitter>(['vals', 'out']);
}

/**
 * The statement writing field `f` of the struct value `vals` into `out` (a `let x` in scope), or
 * undefined for a field never in JSON. wirejson.ts writes the fields it does not read in line
 * with it.
 */
export function emitFieldSource(
  src: FunctionSource,
  f: FieldInfo,
  vals: string,
): string | undefined {
  const shape = f.shape;
  const get = `x = ${vals}[${f.index}];`;
  if (f.inline) {
    if (shape.k === 'struct')
      return `${get} ${src.ref(emitterOf(shape.t))}.fn(x ?? ${src.ref(NO_FIELDS)}, out);`;
    if (shape.k === 'ptr' && shape.elem.k === 'struct')
      return `${get} if (x !== undefined) ${src.ref(emitterOf(shape.elem.t))}.fn(x.p ?? ${src.ref(NO_FIELDS)}, out);`;
    return undefined;
  }
  if (f.json === '-') return undefined;
  const skip: string[] = [];
  const empty = f.omitEmpty ? emptyTest(shape) : undefined;
  if (empty) skip.push(empty);
  if (f.omitZero) skip.push(`${src.ref((v: GoValue) => isZero(shape, v))}(x)`);
  const set = `out[${literal(f.json)}] = ${encodeExpr(src, shape)};`;
  return skip.length ? `${get} if (!(${skip.join(' || ')})) ${set}` : `${get} ${set}`;
}

/** The JSON object of a struct value, into `out` (inlined structs write their fields there). */
export function structToJson(t: StructInfo, vals: GoStructValue, out: Json): Json {
  emitterOf(t).fn(vals, out);
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

/** The encoder of a special type, its fields' indices found once. */
function specialEncoder(shape: Extract<Shape, { k: 'special' }>): Encoder {
  const t = shape.t;
  const at = (goName: string) => field(t, goName);
  const sub = (goName: string) => lazyToJson(t.fields[at(goName)].shape);
  switch (shape.s) {
    case 'time':
    case 'microtime': {
      const micro = shape.s === 'microtime';
      return (v) => (v === undefined ? null : formatGoTime(v as GoTime, micro));
    }
    case 'quantity':
      return (v) => (v === undefined ? '0' : v);
    case 'duration': {
      const duration = at('Duration');
      return (v) =>
        formatGoDuration(((v as GoStructValue | undefined)?.[duration] as number | undefined) ?? 0);
    }
    case 'intorstring': {
      const [type, strVal, intVal] = [at('Type'), at('StrVal'), at('IntVal')];
      return (v) => {
        const vals = (v as GoStructValue | undefined) ?? [];
        return vals[type] === 1
          ? ((vals[strVal] as string | undefined) ?? '')
          : ((vals[intVal] as number | undefined) ?? 0);
      };
    }
    case 'rawextension':
    case 'rawjson':
    case 'fieldsv1': {
      const raw = at('Raw');
      return (v) => rawJson((v as GoStructValue | undefined)?.[raw], shape.name);
    }
    case 'schemaorbool': {
      const [schemaAt, schema, allows] = [at('Schema'), sub('Schema'), at('Allows')];
      return (v) => {
        const vals = (v as GoStructValue | undefined) ?? [];
        if (vals[schemaAt] !== undefined) return schema(vals[schemaAt]);
        return vals[allows] === true;
      };
    }
    case 'schemaorarray':
    case 'schemaorstringarray': {
      const [listAt, schemaAt] = eitherOrFields(shape);
      const [list, schema] = [sub(t.fields[listAt].goName), sub('Schema')];
      // JSONSchemaPropsOrArray writes its Schema even when nil (null); OrStringArray writes null.
      return (v) => {
        const vals = (v as GoStructValue | undefined) ?? [];
        if ((vals[listAt] as GoValue[] | undefined)?.length) return list(vals[listAt]);
        return vals[schemaAt] === undefined ? null : schema(vals[schemaAt]);
      };
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
