/**
 * A built-in object's JSON written straight to the protobuf wire: the bytes kube-apiserver
 * writes after json.Unmarshal into the Go struct and gogo's Marshal (protowire.ts on the Go value
 * govalue.ts makes), without making the Go value. Serving protobuf is mostly this, for every
 * object a client-go informer lists or watches; going through the Go value allocated as much
 * again as the object, and the garbage cost more than the encoding.
 *
 * The common shapes (strings, integers, bools, structs, pointers to them, repeated fields, maps)
 * are written from the JSON in line, by code compiled per struct (jsgen.ts); the rare ones
 * (Times, Quantities, IntOrString, raw JSON, bytes, floats) are converted to their Go value
 * first and written by protowire's writers, so each rule lives in one place. A struct whose
 * inlined struct shadows a JSON name (none in the release today) goes through the Go value.
 */
import type { BinaryWriter } from '@bufbuild/protobuf/wire';
import { WireType } from '@bufbuild/protobuf/wire';
import type { Shape, StructInfo } from './apigraph';
import { field, fromJson, sortedJsonKeys, structFromJson } from './govalue';
import { FunctionSource, compiledPer } from './jsgen';
import { tagOf, taggedWriter, valueWriter, writeInt64, writeStruct } from './protowire';

type Json = Record<string, unknown>;

/** Writes a struct's fields from the JSON object that holds them. */
type JsonStructWriter = (w: BinaryWriter, obj: Json) => void;

/** A struct that is not in the JSON is written as its zero value: no fields set. */
const NO_FIELDS: Json = Object.freeze({}) as Json;

const writerOf = compiledPer((t: StructInfo): JsonStructWriter =>
  shadows(t, new Set()) ? (w, obj) => writeStruct(w, t, structFromJson(t, obj)) : compileWriter(t),
);

/** Whether an inlined struct of `t` has a JSON name its outer struct already uses. */
export function shadows(t: StructInfo, taken: Set<string>): boolean {
  for (const f of t.fields) {
    if (f.inline || f.json === '-') continue;
    if (taken.has(f.json)) return true;
    taken.add(f.json);
  }
  return t.fields.some((f) => {
    const inner = f.shape.k === 'ptr' ? f.shape.elem : f.shape;
    return f.inline && inner.k === 'struct' && shadows(inner.t, taken);
  });
}

const SIGNED = new Set(['int', 'int8', 'int16', 'int32', 'int64']);

/**
 * Statements writing `j`, the JSON of a value of `shape` (a pointer's: its element), its tag
 * already written: null is the zero value; a JSON value of the wrong type is json.Unmarshal's
 * error (the converter's, called to throw it).
 */
function writeJsonValue(src: FunctionSource, shape: Shape, j: string): string {
  const fail = `${src.ref((x: unknown) => fromJson(shape, x))}(${j})`;
  if (shape.k === 'ptr') return writeJsonValue(src, shape.elem, j);
  if (shape.k === 'struct')
    return (
      `if (${j} === null || ${j} === undefined) ${j} = ${src.ref(NO_FIELDS)}; ` +
      `else if (typeof ${j} !== 'object' || Array.isArray(${j})) ${fail}; ` +
      `w.fork(); ${src.ref(writerOf(shape.t))}.fn(w, ${j}); w.join();`
    );
  if (shape.k === 'scalar' && (shape.s === 'string' || shape.s === 'bool' || SIGNED.has(shape.s))) {
    const [type, zero, write] =
      shape.s === 'string'
        ? ['string', "''", `w.string(${j})`]
        : shape.s === 'bool'
          ? ['boolean', 'false', `w.bool(${j})`]
          : // int32 too: Go casts it to uint64, so a negative one takes ten bytes, as int64 does.
            ['number', '0', `${src.ref(writeInt64)}(w, Math.trunc(${j}))`];
    return (
      `if (${j} === null || ${j} === undefined) ${j} = ${zero}; ` +
      `else if (typeof ${j} !== '${type}') ${fail}; ${write};`
    );
  }
  if (shape.k === 'special' && RAW_JSON.has(shape.s)) {
    // Raw JSON (RawExtension, FieldsV1, apiextensions' JSON): its text as the Raw bytes = 1,
    // written as the string it is rather than encoded to bytes first; null leaves Raw nil.
    const raw = tagOf(shape.t.fields[field(shape.t, 'Raw')].number!, { k: 'bytes', name: '' });
    return `w.fork(); if (${j} !== null && ${j} !== undefined) w.uint32(${raw}).string(JSON.stringify(${j})); w.join();`;
  }
  return `${src.ref(valueWriter(shape))}(w, ${src.ref((x: unknown) => fromJson(shape, x))}(${j}));`;
}

const RAW_JSON = new Set(['rawextension', 'fieldsv1', 'rawjson']);

/** Statements writing a map field from its JSON object: entries sorted by key, as gogo writes. */
function writeJsonMap(
  src: FunctionSource,
  no: number,
  shape: Extract<Shape, { k: 'map' }>,
): string {
  const fail = `${src.ref((x: unknown) => fromJson(shape, x))}(j)`;
  const entry = tagOf(no, shape);
  const key = (1 << 3) | WireType.LengthDelimited;
  let value: string;
  if (shape.elem.k === 'scalar' && shape.elem.s === 'string') {
    value = `e = j[k]; w.uint32(${tagOf(2, shape.elem)}); ${writeJsonValue(src, shape.elem, 'e')}`;
  } else {
    // A nil []byte value is left out of its entry, as the generated code does.
    const skip = shape.elem.k === 'bytes' ? 'if (e !== undefined) ' : '';
    value = `e = ${src.ref((x: unknown) => fromJson(shape.elem, x))}(j[k]); ${skip}${src.ref(taggedWriter(2, shape.elem))}(w, e);`;
  }
  return (
    `if (j !== null && j !== undefined) { if (typeof j !== 'object' || Array.isArray(j)) ${fail}; ` +
    `for (const k of ${src.ref(sortedJsonKeys)}(j)) { w.uint32(${entry}).fork(); ` +
    `w.uint32(${key}).string(k); ${value} w.join(); } }`
  );
}

/**
 * The writer of a struct from its JSON: fields in ascending number, as protowire's writer writes
 * the Go value (nil pointers, []byte and named slices left out, repeated fields element by
 * element with null pointers skipped, every other value written zero or not), each read from the
 * object by its JSON name; an inlined struct reads the same object.
 */
function compileWriter(t: StructInfo): JsonStructWriter {
  const src = new FunctionSource();
  src.line('let j, e;');
  for (const f of t.wireOrder) {
    const shape = f.shape;
    const no = f.number!;
    const inner = shape.k === 'ptr' ? shape.elem : shape;
    if (f.inline && inner.k === 'struct') {
      // Its fields are the object's own; decoding always makes the struct, so it is written.
      src.line(
        `w.uint32(${tagOf(no, shape)}); w.fork(); ${src.ref(writerOf(inner.t))}.fn(w, obj); w.join();`,
      );
      continue;
    }
    src.line(`j = obj[${JSON.stringify(f.json)}];`);
    if (shape.k === 'map') {
      src.line(writeJsonMap(src, no, shape));
    } else if (shape.k === 'slice' && !shape.wrapped) {
      const item = shape.elem;
      const skipNull = item.k === 'ptr' ? 'if (e === null || e === undefined) continue; ' : '';
      src.line(
        `if (j !== null && j !== undefined) { if (!Array.isArray(j)) ${src.ref((x: unknown) => fromJson(shape, x))}(j); ` +
          `for (e of j) { ${skipNull}w.uint32(${tagOf(no, item)}); ${writeJsonValue(src, item, 'e')} } }`,
      );
    } else if (shape.k === 'ptr') {
      src.line(
        `if (j !== null && j !== undefined) { w.uint32(${tagOf(no, shape)}); ${writeJsonValue(src, shape, 'j')} }`,
      );
    } else if (shape.k === 'bytes' || shape.k === 'slice') {
      // Nil when null or absent, and then left out.
      const write = src.ref(taggedWriter(no, shape));
      const convert = src.ref((x: unknown) => fromJson(shape, x));
      src.line(`if (j !== null && j !== undefined) ${write}(w, ${convert}(j));`);
    } else {
      src.line(`w.uint32(${tagOf(no, shape)}); ${writeJsonValue(src, shape, 'j')}`);
    }
  }
  return src.compile<JsonStructWriter>(['w', 'obj']);
}

/** Writes the protobuf of a struct from its JSON object. */
export function writeJsonStruct(w: BinaryWriter, t: StructInfo, obj: Json): void {
  writerOf(t).fn(w, obj);
}
