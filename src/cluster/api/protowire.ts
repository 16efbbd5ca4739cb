/**
 * Go values of built-in kinds (govalue.ts) to and from the protobuf wire, field by field from the
 * generated API graph, as Kubernetes' generated Marshal and Unmarshal (gogo-protobuf) do it:
 * fields in ascending number; non-pointer scalars and structs always written, zero or not;
 * pointers, []byte and named slices only when not nil; map entries sorted by key; float64 as
 * fixed64. The wire itself is @bufbuild/protobuf's conformant reader and writer.
 *
 * Decoding refuses what the graph does not describe (an unknown field number, a wrong wire
 * type): nothing on the wire is dropped in silence.
 *
 * Each struct is compiled once, on first use, into a function written for it (jsgen.ts) that
 * knows its tags, wire types and shapes as gogo's generated code does; the rarer shapes, and the
 * decoder's errors, are small closures per field. Nested messages are read in place by narrowing
 * the reader's end (`len`), not through a new reader per message.
 *
 * Serving and accepting protobuf go straight between JSON and the wire (jsonwire.ts, wirejson.ts)
 * and come here for the rarer shapes; the Go value is the reference they are written against.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { FieldInfo, Shape, StructInfo, WireKind } from './apigraph';
import { FunctionSource, compiledPer } from './jsgen';
import { wireKind } from './apigraph';
import type { GoPointer, GoStructValue, GoTime, GoValue } from './govalue';
import { GoValueError, sortedKeys } from './govalue';

const WIRE: Record<WireKind, WireType> = {
  varint: WireType.Varint,
  fixed64: WireType.Bit64,
  fixed32: WireType.Bit32,
  bytes: WireType.LengthDelimited,
};

// ---- encode ------------------------------------------------------------------------------------

/** Writes one value of a shape, without its tag. */
type ValueWriter = (w: BinaryWriter, v: GoValue) => void;
/** Writes one field of a struct value, tag included, or nothing when gogo would skip it. */
type FieldWriter = (w: BinaryWriter, vals: GoStructValue) => void;

export function tagOf(no: number, shape: Shape): number {
  return ((no << 3) | WIRE[wireKind(shape)]) >>> 0;
}

function scalarWriter(shape: Extract<Shape, { k: 'scalar' }>): ValueWriter {
  switch (shape.s) {
    case 'string':
      return (w, v) => w.string((v as string | undefined) ?? '');
    case 'bool':
      return (w, v) => w.bool(v === true);
    case 'float64':
      return (w, v) => w.double((v as number | undefined) ?? 0);
    case 'float32':
      return (w, v) => w.float((v as number | undefined) ?? 0);
    case 'uint64':
    case 'uint':
      return (w, v) => w.uint64(Math.trunc((v as number | undefined) ?? 0));
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return (w, v) => w.uint32((v as number | undefined) ?? 0);
    default:
      // int32 too: Go casts it to uint64, so a negative one takes ten bytes, as int64 does.
      return (w, v) => w.int64(Math.trunc((v as number | undefined) ?? 0));
  }
}

const EMPTY_BYTES = new Uint8Array();

/** Writes a struct value's fields. */
type StructWriter = (w: BinaryWriter, vals: GoStructValue) => void;

/** A struct value that is not there is written as its zero value: no fields set. */
const NO_FIELDS: GoStructValue = Object.freeze([]) as unknown as GoStructValue;

const structWriterOf = compiledPer(compileStructWriter);

/**
 * An int64 varint: one that fits 32 unsigned bits is the same bytes as a uint32 varint, which
 * BinaryWriter writes without the 64-bit split int64() makes.
 */
export function writeInt64(w: BinaryWriter, n: number): void {
  if (n >= 0 && n <= 0xffffffff) w.uint32(n);
  else w.int64(n);
}

/** Writes `x`, a value of `shape` (tag already written), as statements. */
function writeValue(src: FunctionSource, shape: Shape, x: string): string {
  if (shape.k === 'ptr') return writeValue(src, shape.elem, `${x}.p`);
  if (shape.k === 'struct')
    return `w.fork(); ${src.ref(structWriterOf(shape.t))}.fn(w, ${x} ?? ${src.ref(NO_FIELDS)}); w.join();`;
  if (shape.k === 'scalar') {
    if (shape.s === 'string') return `w.string(${x} ?? '');`;
    if (shape.s === 'bool') return `w.bool(${x} === true);`;
    const signed = !['float64', 'float32', 'uint64', 'uint', 'uint8', 'uint16', 'uint32'].includes(
      shape.s,
    );
    // int32 too: Go casts it to uint64, so a negative one takes ten bytes, as int64 does.
    if (signed) return `${src.ref(writeInt64)}(w, Math.trunc(${x} ?? 0));`;
  }
  return `${src.ref(valueWriter(shape))}(w, ${x});`;
}

/**
 * The writer of a struct, its fields in ascending number as gogo's generated Marshal writes
 * them: repeated fields element by element (nil pointers skipped); nil pointers, []byte and
 * named slices left out; every other value written, zero or not. Maps are left to fieldWriter.
 */
function compileStructWriter(t: StructInfo): StructWriter {
  const src = new FunctionSource();
  src.line('let x;');
  for (const f of t.wireOrder) {
    const shape = f.shape;
    const no = f.number!;
    const get = `x = vals[${f.index}];`;
    if (shape.k === 'map') {
      src.line(`${src.ref(mapWriter(f, shape))}(w, vals);`);
    } else if (shape.k === 'slice' && !shape.wrapped) {
      const skipNil = shape.elem.k === 'ptr' ? 'if (e === undefined) continue; ' : '';
      src.line(
        `${get} if (x !== undefined) for (const e of x) { ${skipNil}w.uint32(${tagOf(no, shape.elem)}); ${writeValue(src, shape.elem, 'e')} }`,
      );
    } else {
      const write = `w.uint32(${tagOf(no, shape)}); ${writeValue(src, shape, 'x')}`;
      // gogo skips nil pointers, nil []byte and nil named slices; everything else is written.
      const optional = shape.k === 'ptr' || shape.k === 'bytes' || shape.k === 'slice';
      src.line(optional ? `${get} if (x !== undefined) { ${write} }` : `${get} ${write}`);
    }
  }
  return src.compile<StructWriter>(['w', 'vals']);
}

function messageWriter(t: StructInfo): ValueWriter {
  const sw = structWriterOf(t);
  return (w, v) => {
    w.fork();
    sw.fn(w, (v as GoStructValue | undefined) ?? NO_FIELDS);
    w.join();
  };
}

function specialWriter(s: Extract<Shape, { k: 'special' }>): ValueWriter {
  switch (s.s) {
    case 'time':
    case 'microtime': {
      const micro = s.s === 'microtime';
      // A zero time is an empty message (Time.MarshalToSizedBuffer); Time drops the nanoseconds.
      return (w, v) => {
        w.fork();
        if (v !== undefined) {
          const t = v as GoTime;
          w.tag(1, WireType.Varint).int64(t.s);
          w.tag(2, WireType.Varint).int32(micro ? t.n : 0);
        }
        w.join();
      };
    }
    case 'quantity':
      return (w, v) => {
        w.fork();
        w.tag(1, WireType.LengthDelimited).string((v as string | undefined) ?? '0');
        w.join();
      };
    default:
      return messageWriter(s.t);
  }
}

/** The value writer of a shape (a pointer's element is written as the element). */
export function valueWriter(shape: Shape): ValueWriter {
  switch (shape.k) {
    case 'ptr': {
      const elem = valueWriter(shape.elem);
      return (w, v) => elem(w, (v as GoPointer).p);
    }
    case 'scalar':
      return scalarWriter(shape);
    case 'bytes':
      return (w, v) => w.bytes((v as Uint8Array | undefined) ?? EMPTY_BYTES);
    case 'slice': {
      // A named slice: a message of `repeated items = 1`.
      const item = taggedWriter(1, shape.elem);
      return (w, v) => {
        w.fork();
        for (const x of (v as GoValue[] | undefined) ?? []) item(w, x);
        w.join();
      };
    }
    case 'struct':
      return messageWriter(shape.t);
    case 'special':
      return specialWriter(shape);
    default:
      return () => {
        throw new GoValueError(`${shape.name} cannot be written as protobuf`);
      };
  }
}

/** Writes field `no` holding one value (a repeated field calls this per element). */
export function taggedWriter(no: number, shape: Shape): ValueWriter {
  const tag = tagOf(no, shape);
  const value = valueWriter(shape);
  return (w, v) => value(w.uint32(tag), v);
}

/** The writer of a map field: its entries, sorted by key, each a message of key = 1, value = 2. */
function mapWriter(f: FieldInfo, shape: Extract<Shape, { k: 'map' }>): FieldWriter {
  const i = f.index;
  const entryTag = tagOf(f.number!, shape);
  const value = taggedWriter(2, shape.elem);
  const nilBytes = shape.elem.k === 'bytes';
  return (w, vals) => {
    const m = vals[i] as Map<string, GoValue> | undefined;
    if (!m) return;
    for (const k of sortedKeys(m)) {
      const x = m.get(k);
      w.uint32(entryTag).fork();
      w.tag(1, WireType.LengthDelimited).string(k);
      // A nil []byte value is left out of its entry, as the generated code does.
      if (!(nilBytes && x === undefined)) value(w, x);
      w.join();
    }
  };
}

export function writeStruct(w: BinaryWriter, t: StructInfo, vals: GoStructValue): void {
  structWriterOf(t).fn(w, vals);
}

// ---- decode ------------------------------------------------------------------------------------

/** A body the graph does not describe: the 400's message. */
export class ProtoDecodeError extends Error {}

/** Reads one value of a shape whose tag (of wire type `wire`) was just read. */
type ValueReader = (r: BinaryReader, wire: number) => GoValue;
/** Reads one occurrence of a struct's field into the struct's value. */
type FieldReader = (r: BinaryReader, wire: number, vals: GoStructValue) => void;

function zeroToUndefined(v: unknown): GoValue {
  return v === '' || v === 0 || v === false ? undefined : v;
}

/** A scalar, its zero value as undefined (the Go value's convention). */
export function scalarReader(s: Extract<Shape, { k: 'scalar' }>): (r: BinaryReader) => GoValue {
  switch (s.s) {
    case 'string':
      return (r) => zeroToUndefined(readString(r));
    case 'bool':
      return (r) => zeroToUndefined(r.bool());
    case 'float64':
      return (r) => zeroToUndefined(r.double());
    case 'float32':
      return (r) => zeroToUndefined(r.float());
    case 'int32':
    case 'int16':
    case 'int8':
      return (r) => zeroToUndefined(r.int32());
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return (r) => zeroToUndefined(r.uint32());
    case 'uint64':
    case 'uint':
      return (r) => zeroToUndefined(Number(r.uint64()));
    default:
      return readInt64;
  }
}

/**
 * An int64 varint as a number: one byte (0-127, most counts and sizes) read in place, longer
 * ones through BinaryReader.int64(), whose 64-bit result is a BigInt.
 */
function readInt64(r: BinaryReader): GoValue {
  if (inPlace) {
    const b = (r as unknown as ReaderFields).buf[r.pos];
    if (b < 0x80 && r.pos < r.len) {
      r.pos++;
      return b === 0 ? undefined : b;
    }
  }
  return zeroToUndefined(Number(r.int64()));
}

/** Recently read short strings, by a hash of their bytes: see readString. */
const strings: Array<string | undefined> = new Array<string | undefined>(4096);

/**
 * A string field, as BinaryReader.string() reads it, but a short ASCII one is looked up among
 * the strings read before: an object's strings repeat (label keys and values, names, enum
 * values), and making a string costs several times more than hashing and comparing its bytes
 * (JSON.parse keeps such a cache for the same reason). Anything else is the library's to read.
 */
export function readString(r: BinaryReader): string {
  if (!inPlace) return r.string();
  const buf = (r as unknown as ReaderFields).buf;
  const len = buf[r.pos];
  const from = r.pos + 1;
  const to = from + len;
  // A longer string, or a length of more than one byte, or one past the message's end.
  if (!(len <= 32) || to > r.len) return r.string();
  let h = len;
  for (let i = from; i < to; i++) {
    const c = buf[i];
    if (c > 0x7f) return r.string();
    h = (Math.imul(h, 31) + c) | 0;
  }
  r.pos = to;
  const slot = h & (strings.length - 1);
  const seen = strings[slot];
  if (seen !== undefined && seen.length === len) {
    let i = 0;
    while (i < len && seen.charCodeAt(i) === buf[from + i]) i++;
    if (i === len) return seen;
  }
  const s = String.fromCharCode.apply(null, buf.subarray(from, to) as unknown as number[]);
  strings[slot] = s;
  return s;
}

/** Where a value is, for an error only: the struct and field, and what inside it (`.key`). */
function named(t: StructInfo, f: FieldInfo, inner = ''): string {
  return `${t.name.slice(t.name.lastIndexOf('.') + 1)}.${f.goName}${inner}`;
}

/**
 * What BinaryReader keeps as plain fields though its typings hide them: its buffer and its end.
 * Narrowing `len` reads a nested message in place, with the reader's own bounds checks, instead of
 * allocating a reader (and a DataView) per message. Checked once: a release of the library that
 * keeps them elsewhere gets a reader per message, as its API intends.
 */
interface ReaderFields {
  buf: Uint8Array;
  len: number;
}

export const inPlace = (() => {
  const probe = new BinaryReader(new Uint8Array([8, 1])) as unknown as Partial<ReaderFields>;
  return probe.buf instanceof Uint8Array && probe.len === 2;
})();

/**
 * Reads a length-delimited message: `body` reads from the message's start to its end (the
 * reader's `len` while it runs). The end is checked as BinaryReader.bytes() checks it.
 */
function inMessage<T>(r: BinaryReader, body: (r: BinaryReader) => T): T {
  if (!inPlace) return body(new BinaryReader(r.bytes()));
  const fields = r as unknown as ReaderFields;
  const size = r.uint32();
  const end = r.pos + size;
  const outer = fields.len;
  if (end > outer) throw new RangeError('premature EOF');
  fields.len = end;
  const v = body(r);
  fields.len = outer;
  r.pos = end;
  return v;
}

/** A tag read with BinaryReader.tag()'s checks, without the pair it allocates. */
export function readTag(r: BinaryReader): number {
  if (!inPlace) {
    const [no, wire] = r.tag();
    return ((no << 3) | wire) >>> 0;
  }
  const start = r.pos;
  const tag = r.uint32();
  const read = r.pos - start;
  if (read > 5 || (read === 5 && (r as unknown as ReaderFields).buf[r.pos - 1] > 0x0f))
    throw new Error('illegal tag: varint overflows uint32');
  if (tag >>> 3 <= 0 || (tag & 7) > 5)
    throw new Error(`illegal tag: field no ${tag >>> 3} wire type ${tag & 7}`);
  return tag;
}

const structReaders = new WeakMap<StructInfo, FieldReader[]>();

/**
 * Reads one field of `t` whose tag was just read into its Go value, by the field's reader:
 * every shape, and the decoder's errors (an unknown number, a wrong wire type).
 */
export function readField(t: StructInfo, r: BinaryReader, tag: number, vals: GoStructValue): void {
  const fr = readersOf(t)[tag >>> 3];
  if (!fr) throw new ProtoDecodeError(`proto: unknown field number ${tag >>> 3} in ${t.name}`);
  fr(r, tag & 7, vals);
}

function readersOf(t: StructInfo): FieldReader[] {
  let rs = structReaders.get(t);
  if (!rs) {
    rs = [];
    for (const f of t.wireOrder) rs[f.number!] = fieldReader(t, f);
    structReaders.set(t, rs);
  }
  return rs;
}

/** Reads a struct's fields from the reader's position to its end (`len`) into `vals`. */
type StructReader = (r: BinaryReader, vals: GoStructValue) => GoStructValue;

function readFields(
  r: BinaryReader,
  t: StructInfo,
  rs: FieldReader[],
  vals: GoStructValue,
): GoStructValue {
  while (r.pos < r.len) {
    const tag = readTag(r);
    const no = tag >>> 3;
    const fr = rs[no];
    if (!fr) throw new ProtoDecodeError(`proto: unknown field number ${no} in ${t.name}`);
    fr(r, tag & 7, vals);
  }
  return vals;
}

const structReaderOf = compiledPer((t: StructInfo): StructReader =>
  inPlace ? compileStructReader(t) : (r, vals) => readFields(r, t, readersOf(t), vals),
);

export function prematureEof(): never {
  throw new RangeError('premature EOF');
}

/**
 * Statements reading a length-delimited struct in place (the reader's end narrowed to the
 * message's, as inMessage does) into `target`, the struct value `into` merged into as gogo's
 * Unmarshal merges a message that comes twice.
 */
function readMessage(
  src: FunctionSource,
  t: StructInfo,
  into: string,
  target: (v: string) => string,
): string {
  return (
    `size = r.uint32(); end = r.pos + size; if (end > r.len) ${src.ref(prematureEof)}(); ` +
    `outer = r.len; r.len = end; x = ${src.ref(structReaderOf(t))}.fn(r, ${into}); ` +
    `r.len = outer; r.pos = end; ${target('x')}`
  );
}

/**
 * The reader of a struct: a switch on the tag (number and wire type) with the common shapes
 * read in line (scalars, structs, pointers to them, repeated structs and strings); everything
 * else, and a known field of the wrong wire type, goes to the field's reader, which reads the
 * rarer shapes and throws the decoder's errors.
 */
function compileStructReader(t: StructInfo): StructReader {
  const src = new FunctionSource();
  const fallback = src.ref((r: BinaryReader, tag: number, vals: GoStructValue) =>
    readField(t, r, tag, vals),
  );
  src.line('let x, size, end, outer;');
  src.line('while (r.pos < r.len) {');
  src.line(`  const tag = ${src.ref(readTag)}(r);`);
  src.line('  switch (tag) {');
  for (const f of t.wireOrder) {
    const shape = f.shape;
    const no = f.number!;
    const at = `vals[${f.index}]`;
    const ptr = shape.k === 'ptr';
    const elem = ptr ? shape.elem : shape;
    let read: string | undefined;
    if (shape.k === 'slice' && !shape.wrapped) {
      const item = shape.elem;
      if (item.k === 'struct')
        read = readMessage(src, item.t, '[]', (x) => `(${at} ??= []).push(${x});`);
      else if (item.k === 'scalar' && item.s === 'string')
        read = `(${at} ??= []).push(${src.ref(scalarReader(item))}(r));`;
      if (read) src.line(`    case ${tagOf(no, item)}: ${read} break;`);
      continue;
    }
    if (elem.k === 'scalar') {
      const value = `${src.ref(scalarReader(elem))}(r)`;
      read = `${at} = ${ptr ? `{ p: ${value} }` : value};`;
    } else if (elem.k === 'struct') {
      const into = ptr ? `(${at}?.p ?? [])` : `(${at} ?? [])`;
      read = readMessage(src, elem.t, into, (x) => `${at} = ${ptr ? `{ p: ${x} }` : x};`);
    }
    if (read) src.line(`    case ${tagOf(no, shape)}: ${read} break;`);
  }
  src.line(`    default: ${fallback}(r, tag, vals);`);
  src.line('  }');
  src.line('}');
  src.line('return vals;');
  return src.compile<StructReader>(['r', 'vals']);
}

function messageReader(t: StructInfo): (r: BinaryReader) => GoStructValue {
  const sr = structReaderOf(t);
  return (r) => inMessage(r, (m) => sr.fn(m, []));
}

function specialReader(s: Extract<Shape, { k: 'special' }>): (r: BinaryReader) => GoValue {
  switch (s.s) {
    case 'time':
    case 'microtime': {
      const micro = s.s === 'microtime';
      return (r) =>
        inMessage(r, (m) => {
          // An empty message is the zero time (Time.Unmarshal); MicroTime keeps microseconds.
          if (m.pos === m.len) return undefined;
          const t: GoTime = { s: 0, n: 0 };
          while (m.pos < m.len) {
            const tag = readTag(m);
            if (tag === ((1 << 3) | WireType.Varint)) t.s = Number(m.int64());
            else if (tag === ((2 << 3) | WireType.Varint)) t.n = m.int32();
            else
              throw new ProtoDecodeError(
                `proto: unknown field number ${tag >>> 3} in v1.Timestamp`,
              );
          }
          t.n = micro ? Math.floor(t.n / 1000) * 1000 : 0;
          return t;
        });
    }
    case 'quantity':
      return (r) =>
        inMessage(r, (m) => {
          let q = '';
          while (m.pos < m.len) {
            const tag = readTag(m);
            if (tag !== ((1 << 3) | WireType.LengthDelimited))
              throw new ProtoDecodeError(
                `proto: unknown field number ${tag >>> 3} in resource.Quantity`,
              );
            q = m.string();
          }
          return q === '' ? undefined : q;
        });
    default:
      return messageReader(s.t);
  }
}

/**
 * The reader of a shape's value, checking the wire type first; `where` names the field for the
 * errors (built only when one is thrown).
 */
function valueReader(shape: Shape, where: () => string): ValueReader {
  if (shape.k === 'ptr') {
    const elem = valueReader(shape.elem, where);
    return (r, wire) => ({ p: elem(r, wire) }) satisfies GoPointer;
  }
  const want = WIRE[wireKind(shape)];
  const read = plainReader(shape, where);
  return (r, wire) => {
    if (wire !== want)
      throw new ProtoDecodeError(`proto: wrong wireType = ${wire} for field ${where()}`);
    return read(r);
  };
}

function plainReader(shape: Shape, where: () => string): (r: BinaryReader) => GoValue {
  switch (shape.k) {
    case 'scalar':
      return scalarReader(shape);
    case 'bytes':
      return (r) => r.bytes().slice();
    case 'slice': {
      const item = repeatedReader(shape.elem, () => `${where()}.Items`);
      return (r) =>
        inMessage(r, (m) => {
          const items: GoValue[] = [];
          while (m.pos < m.len) {
            const tag = readTag(m);
            if (tag >>> 3 !== 1)
              throw new ProtoDecodeError(
                `proto: unknown field number ${tag >>> 3} in ${shape.name}`,
              );
            item(m, tag & 7, items);
          }
          return items;
        });
    }
    case 'struct':
      return messageReader(shape.t);
    case 'special':
      return specialReader(shape);
    default:
      return () => {
        throw new ProtoDecodeError(`${shape.name} is never on the wire (field ${where()})`);
      };
  }
}

/** One occurrence of a repeated field: one element, or several when packed. */
function repeatedReader(
  elem: Shape,
  where: () => string,
): (r: BinaryReader, wire: number, into: GoValue[]) => void {
  const one = valueReader(elem, where);
  if (elem.k === 'scalar' && WIRE[wireKind(elem)] !== WireType.LengthDelimited) {
    const scalar = scalarReader(elem);
    return (r, wire, into) => {
      if (wire !== WireType.LengthDelimited) into.push(one(r, wire));
      else
        inMessage(r, (m) => {
          while (m.pos < m.len) into.push(scalar(m));
        });
    };
  }
  return (r, wire, into) => {
    into.push(one(r, wire));
  };
}

function fieldReader(t: StructInfo, f: FieldInfo): FieldReader {
  const i = f.index;
  const shape = f.shape;
  const where = () => named(t, f);
  if (shape.k === 'slice' && !shape.wrapped) {
    const item = repeatedReader(shape.elem, where);
    return (r, wire, vals) => {
      const items = (vals[i] as GoValue[] | undefined) ?? (vals[i] = []);
      item(r, wire, items as GoValue[]);
    };
  }
  if (shape.k === 'map') {
    const key = valueReader(shape.key, () => named(t, f, '.key'));
    const value = valueReader(shape.elem, () => named(t, f, '.value'));
    return (r, wire, vals) => {
      if (wire !== WireType.LengthDelimited)
        throw new ProtoDecodeError(`proto: wrong wireType = ${wire} for field ${where()}`);
      const m = (vals[i] as Map<string, GoValue> | undefined) ?? new Map<string, GoValue>();
      inMessage(r, (e) => {
        let k = '';
        let v: GoValue;
        while (e.pos < e.len) {
          const tag = readTag(e);
          const eno = tag >>> 3;
          if (eno === 1) k = (key(e, tag & 7) as string | undefined) ?? '';
          else if (eno === 2) v = value(e, tag & 7);
          else
            throw new ProtoDecodeError(`proto: unknown field number ${eno} in ${shape.name} entry`);
        }
        m.set(k, v);
      });
      vals[i] = m;
    };
  }
  const one = valueReader(shape, where);
  return (r, wire, vals) => {
    vals[i] = one(r, wire);
  };
}

/** A struct value read from the reader's position to its end. */
export function readStructFrom(r: BinaryReader, t: StructInfo): GoStructValue {
  return structReaderOf(t).fn(r, []);
}
