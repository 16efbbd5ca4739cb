/**
 * A built-in object's protobuf read straight into its JSON: the JSON kube-apiserver writes after
 * gogo's Unmarshal into the Go struct and json.Marshal (protowire.ts reading the Go value and
 * govalue.ts writing it), without making the Go value, which allocated as much again as the
 * object. Every protobuf write a client-go program sends is decoded here.
 *
 * Code compiled per struct (jsgen.ts) reads the common shapes in line into locals (strings,
 * integers, bools, structs and pointers to them, repeated structs and strings, string maps) and
 * then writes the JSON fields in declaration order with encoding/json's rules (zero values
 * written, omitempty, nil as null, map keys sorted). The other fields (Times, Quantities, raw
 * JSON, IntOrString, floats, bytes, other maps), and every error, go through protowire's field
 * readers into a Go value and govalue's emitter, so each rule lives in one place. A struct whose
 * inlined struct shadows a JSON name (none in the release today) goes through the Go value.
 *
 * One difference from gogo's Unmarshal, for bytes no client writes: a message field that comes
 * twice is read as its last occurrence, where gogo merges the two.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import type { FieldInfo, Shape, StructInfo } from './apigraph';
import { emitFieldSource, isSorted, structToJson } from './govalue';
import type { GoStructValue } from './govalue';
import { FunctionSource, compiledPer, literal } from './jsgen';
import {
  ProtoDecodeError,
  inPlace,
  prematureEof,
  readField,
  readStructFrom,
  readString,
  readTag,
  scalarReader,
  tagOf,
} from './protowire';
import { shadows } from './jsonwire';

type Json = Record<string, unknown>;

/** Reads a struct's fields from the reader's position to its end, writing their JSON to `out`. */
type StructJsonReader = (r: BinaryReader, out: Json) => Json;

/** A reader at its end: a struct read from it is its zero value. */
const AT_END = new BinaryReader(new Uint8Array(0));

const NO_FIELDS: GoStructValue = Object.freeze([]) as unknown as GoStructValue;

const readerOf = compiledPer((t: StructInfo): StructJsonReader =>
  inPlace && !shadows(t, new Set())
    ? compileReader(t)
    : (r, out) => structToJson(t, readStructFrom(r, t), out),
);

/** Scalars read in line: those whose Go value fits a JavaScript number exactly, and strings. */
const INLINE_SCALARS = new Set([
  'string',
  'bool',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
]);

function zeroLiteral(s: string): string {
  return s === 'string' ? "''" : s === 'bool' ? 'false' : '0';
}

/** Statements reading a length-delimited struct in place into `x`, as JSON. */
function readMessage(src: FunctionSource, t: StructInfo): string {
  return (
    `size = r.uint32(); end = r.pos + size; if (end > r.len) ${src.ref(prematureEof)}(); ` +
    `outer = r.len; r.len = end; x = ${src.ref(readerOf(t))}.fn(r, {}); r.len = outer; r.pos = end;`
  );
}

/** An object with its keys sorted, as json.Marshal writes a map (most come sorted: kept). */
function sortedObject(o: Json): Json {
  const keys = Object.keys(o);
  if (isSorted(keys)) return o;
  const sorted: Json = {};
  for (const k of keys.sort()) sorted[k] = o[k];
  return sorted;
}

/** How one field is read in line and written: its case and its emission; none for the rest. */
interface InlineField {
  read: string;
  emit: string;
}

/** The field read in line, if its shape is one of the common ones; the local is `v<index>`. */
function inlineField(src: FunctionSource, t: StructInfo, f: FieldInfo): InlineField | undefined {
  const shape = f.shape;
  const no = f.number!;
  const v = `v${f.index}`;
  const name = literal(f.json);
  const ptr = shape.k === 'ptr';
  const elem: Shape = shape.k === 'ptr' ? shape.elem : shape;
  // Written when set (a Go value that is not nil, or not empty where omitempty asks).
  const whenSet = (value: string) => `if (${v} !== undefined) out[${name}] = ${value};`;
  if (f.omitZero || f.json === '-') return undefined;
  if (f.inline) {
    if (elem.k !== 'struct') return undefined;
    const zero = `${src.ref(readerOf(elem.t))}.fn(${src.ref(AT_END)}, out)`;
    return {
      read: `case ${tagOf(no, shape)}: ${readMessage(src, elem.t)} ${v} = x; break;`,
      // Its fields are the struct's own: written in its place.
      emit: ptr
        ? `if (${v} !== undefined) Object.assign(out, ${v});`
        : `if (${v} !== undefined) Object.assign(out, ${v}); else ${zero};`,
    };
  }
  if (elem.k === 'scalar' && INLINE_SCALARS.has(elem.s)) {
    const value = `${src.ref(scalarReader(elem))}(r)`;
    const zero = zeroLiteral(elem.s);
    return {
      // The scalar reader gives undefined for a zero value; a pointer to one keeps the zero.
      read: `case ${tagOf(no, shape)}: ${v} = ${ptr ? `${value} ?? ${zero}` : value}; break;`,
      emit: f.omitEmpty ? whenSet(v) : `out[${name}] = ${v} ?? ${ptr ? 'null' : zero};`,
    };
  }
  if (elem.k === 'struct') {
    const zero = `${src.ref(readerOf(elem.t))}.fn(${src.ref(AT_END)}, {})`;
    const absent = ptr ? 'null' : zero;
    return {
      read: `case ${tagOf(no, shape)}: ${readMessage(src, elem.t)} ${v} = x; break;`,
      emit: f.omitEmpty && ptr ? whenSet(v) : `out[${name}] = ${v} ?? ${absent};`,
    };
  }
  if (shape.k === 'slice' && !shape.wrapped) {
    const item = shape.elem;
    let read: string | undefined;
    if (item.k === 'struct') read = `${readMessage(src, item.t)} (${v} ??= []).push(x);`;
    else if (item.k === 'scalar' && item.s === 'string')
      read = `(${v} ??= []).push(${src.ref(readString)}(r));`;
    if (!read) return undefined;
    return {
      read: `case ${tagOf(no, item)}: ${read} break;`,
      emit: f.omitEmpty ? whenSet(v) : `out[${name}] = ${v} ?? null;`,
    };
  }
  if (
    shape.k === 'map' &&
    shape.key.k === 'scalar' &&
    shape.key.s === 'string' &&
    shape.elem.k === 'scalar' &&
    shape.elem.s === 'string'
  ) {
    // An entry is key = 1, value = 2; anything else is the field reader's error to give.
    const entryError = src.ref((tag: number): never => {
      const no = tag >>> 3;
      throw new ProtoDecodeError(
        no === 1 || no === 2
          ? `proto: wrong wireType = ${tag & 7} for field ${t.name.slice(t.name.lastIndexOf('.') + 1)}.${f.goName}.${no === 1 ? 'key' : 'value'}`
          : `proto: unknown field number ${no} in ${shape.name} entry`,
      );
    });
    const key = (1 << 3) | WireType.LengthDelimited;
    const value = (2 << 3) | WireType.LengthDelimited;
    return {
      read:
        `case ${tagOf(no, shape)}: size = r.uint32(); end = r.pos + size; if (end > r.len) ${src.ref(prematureEof)}(); ` +
        `outer = r.len; r.len = end; k = ''; x = ''; while (r.pos < end) { e = ${src.ref(readTag)}(r); ` +
        `if (e === ${key}) k = ${src.ref(readString)}(r); else if (e === ${value}) x = ${src.ref(readString)}(r); else ${entryError}(e); } ` +
        `r.len = outer; r.pos = end; (${v} ??= {})[k] = x; break;`,
      emit: `${f.omitEmpty ? `if (${v} !== undefined) ` : ''}out[${name}] = ${v} === undefined ? null : ${src.ref(sortedObject)}(${v});`,
    };
  }
  return undefined;
}

/**
 * The reader of a struct: a switch on the tag with the common shapes read in line, the rest
 * read into a Go value (`gv`) by their field readers; then every field written in declaration
 * order, from its local or from the Go value.
 */
function compileReader(t: StructInfo): StructJsonReader {
  const src = new FunctionSource();
  const inline = new Map<FieldInfo, InlineField>();
  for (const f of t.wireOrder) {
    const i = inlineField(src, t, f);
    if (i) inline.set(f, i);
  }
  const locals = [...inline.keys()].map((f) => `v${f.index}`);
  src.line(`let x, k, e, size, end, outer, gv${locals.map((l) => `, ${l}`).join('')};`);
  src.line('while (r.pos < r.len) {');
  src.line(`  const tag = ${src.ref(readTag)}(r);`);
  src.line('  switch (tag) {');
  for (const { read } of inline.values()) src.line(`    ${read}`);
  src.line(`    default: ${src.ref(readField)}(${src.ref(t)}, r, tag, (gv ??= []));`);
  src.line('  }');
  src.line('}');
  src.line(`const g = gv ?? ${src.ref(NO_FIELDS)};`);
  for (const f of t.fields) {
    const line = inline.get(f)?.emit ?? emitFieldSource(src, f, 'g');
    if (line) src.line(line);
  }
  src.line('return out;');
  return src.compile<StructJsonReader>(['r', 'out']);
}

/** The JSON of a struct from its protobuf bytes, written into `out`. */
export function readJsonStruct(bytes: Uint8Array, t: StructInfo, out: Json): Json {
  return readerOf(t).fn(new BinaryReader(bytes), out);
}
