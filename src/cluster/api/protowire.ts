/**
 * Go values of built-in kinds (govalue.ts) to and from the protobuf wire, field by field from the
 * generated API graph, as Kubernetes' generated Marshal and Unmarshal (gogo-protobuf) do it:
 * fields in ascending number; non-pointer scalars and structs always written, zero or not;
 * pointers, []byte and named slices only when not nil; map entries sorted by key; float64 as
 * fixed64. The wire itself is @bufbuild/protobuf's conformant reader and writer.
 *
 * Decoding refuses what the graph does not describe (an unknown field number, a wrong wire
 * type): nothing on the wire is dropped in silence.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { FieldInfo, Shape, StructInfo } from './apigraph';
import { wireKind } from './apigraph';
import type { GoPointer, GoStructValue, GoTime, GoValue } from './govalue';
import { GoValueError } from './govalue';

const WIRE: Record<ReturnType<typeof wireKind>, WireType> = {
  varint: WireType.Varint,
  fixed64: WireType.Bit64,
  fixed32: WireType.Bit32,
  bytes: WireType.LengthDelimited,
};

// ---- encode ------------------------------------------------------------------------------------

function writeScalar(w: BinaryWriter, shape: Extract<Shape, { k: 'scalar' }>, v: GoValue): void {
  switch (shape.s) {
    case 'string':
      w.string((v as string | undefined) ?? '');
      return;
    case 'bool':
      w.bool(v === true);
      return;
    case 'float64':
      w.double((v as number | undefined) ?? 0);
      return;
    case 'float32':
      w.float((v as number | undefined) ?? 0);
      return;
    case 'uint64':
    case 'uint':
      w.uint64(Math.trunc((v as number | undefined) ?? 0));
      return;
    case 'uint8':
    case 'uint16':
    case 'uint32':
      w.uint32((v as number | undefined) ?? 0);
      return;
    default:
      // int32 too: Go casts it to uint64, so a negative one takes ten bytes, as int64 does.
      w.int64(Math.trunc((v as number | undefined) ?? 0));
  }
}

/** Writes one occurrence of field `no` holding `v` (a repeated field calls this per element). */
function writeOne(w: BinaryWriter, no: number, shape: Shape, v: GoValue): void {
  const s = shape.k === 'ptr' ? shape.elem : shape;
  const val = shape.k === 'ptr' ? (v as GoPointer).p : v;
  w.tag(no, WIRE[wireKind(s)]);
  switch (s.k) {
    case 'scalar':
      writeScalar(w, s, val);
      return;
    case 'bytes':
      w.bytes((val as Uint8Array | undefined) ?? new Uint8Array());
      return;
    case 'slice': // a named slice: a message of `repeated items = 1`
      w.fork();
      for (const x of (val as GoValue[] | undefined) ?? []) writeOne(w, 1, s.elem, x);
      w.join();
      return;
    case 'struct':
      w.fork();
      writeStruct(w, s.t, (val as GoStructValue | undefined) ?? []);
      w.join();
      return;
    case 'special':
      w.fork();
      writeSpecial(w, s, val);
      w.join();
      return;
    default:
      throw new GoValueError(`${s.name} cannot be written as protobuf`);
  }
}

function writeSpecial(w: BinaryWriter, s: Extract<Shape, { k: 'special' }>, v: GoValue): void {
  switch (s.s) {
    case 'time':
    case 'microtime': {
      // A zero time is an empty message (Time.MarshalToSizedBuffer); Time drops the nanoseconds.
      if (v === undefined) return;
      const t = v as GoTime;
      w.tag(1, WireType.Varint).int64(t.s);
      w.tag(2, WireType.Varint).int32(s.s === 'microtime' ? t.n : 0);
      return;
    }
    case 'quantity':
      w.tag(1, WireType.LengthDelimited).string((v as string | undefined) ?? '0');
      return;
    default:
      writeStruct(w, s.t, (v as GoStructValue | undefined) ?? []);
  }
}

/** Whether a field is written at all: gogo skips nil pointers, nil []byte and nil named slices. */
function present(f: FieldInfo, v: GoValue): boolean {
  switch (f.shape.k) {
    case 'ptr':
    case 'bytes':
      return v !== undefined;
    case 'slice':
      return !f.shape.wrapped || v !== undefined;
    default:
      return true;
  }
}

export function writeStruct(w: BinaryWriter, t: StructInfo, vals: GoStructValue): void {
  for (const f of t.wireOrder) {
    const v = vals[f.index];
    if (!present(f, v)) continue;
    const no = f.number!;
    const shape = f.shape;
    if (shape.k === 'slice' && !shape.wrapped) {
      for (const x of (v as GoValue[] | undefined) ?? []) {
        if (shape.elem.k === 'ptr' && x === undefined) continue;
        writeOne(w, no, shape.elem, x);
      }
    } else if (shape.k === 'map') {
      const m = (v as Map<string, GoValue> | undefined) ?? new Map<string, GoValue>();
      for (const k of [...m.keys()].sort()) {
        const x = m.get(k);
        w.tag(no, WireType.LengthDelimited).fork();
        w.tag(1, WireType.LengthDelimited).string(k);
        // A nil []byte value is left out of its entry, as the generated code does.
        if (!(shape.elem.k === 'bytes' && x === undefined)) writeOne(w, 2, shape.elem, x);
        w.join();
      }
    } else {
      writeOne(w, no, shape, v);
    }
  }
}

/** A struct value's protobuf (the object's bytes, without the envelope). */
export function encodeStruct(t: StructInfo, vals: GoStructValue): Uint8Array {
  const w = new BinaryWriter();
  writeStruct(w, t, vals);
  return w.finish();
}

// ---- decode ------------------------------------------------------------------------------------

/** A body the graph does not describe: the 400's message. */
export class ProtoDecodeError extends Error {}

function toNumber(v: bigint | string): number {
  return Number(v);
}

function readScalar(r: BinaryReader, s: Extract<Shape, { k: 'scalar' }>): GoValue {
  let v: unknown;
  switch (s.s) {
    case 'string':
      v = r.string();
      break;
    case 'bool':
      v = r.bool();
      break;
    case 'float64':
      v = r.double();
      break;
    case 'float32':
      v = r.float();
      break;
    case 'int32':
    case 'int16':
    case 'int8':
      v = r.int32();
      break;
    case 'uint8':
    case 'uint16':
    case 'uint32':
      v = r.uint32();
      break;
    case 'uint64':
    case 'uint':
      v = toNumber(r.uint64());
      break;
    default:
      v = toNumber(r.int64());
  }
  return v === '' || v === 0 || v === false ? undefined : v;
}

/** Where a value is, for an error only: the struct and field, and what inside it (`.key`). */
interface Where {
  t: StructInfo;
  f: FieldInfo;
  inner?: string;
}

function named(w: Where): string {
  return `${w.t.name.slice(w.t.name.lastIndexOf('.') + 1)}.${w.f.goName}${w.inner ?? ''}`;
}

function readOne(r: BinaryReader, shape: Shape, wire: WireType, where: Where): GoValue {
  if (shape.k === 'ptr') {
    const p: GoPointer = { p: readOne(r, shape.elem, wire, where) };
    return p;
  }
  const want = WIRE[wireKind(shape)];
  if (wire !== want)
    throw new ProtoDecodeError(`proto: wrong wireType = ${wire} for field ${named(where)}`);
  switch (shape.k) {
    case 'scalar':
      return readScalar(r, shape);
    case 'bytes':
      return r.bytes().slice();
    case 'slice': {
      const items: GoValue[] = [];
      const sub = new BinaryReader(r.bytes());
      while (sub.pos < sub.len) {
        const [no, w] = sub.tag();
        if (no !== 1)
          throw new ProtoDecodeError(`proto: unknown field number ${no} in ${shape.name}`);
        readRepeated(sub, shape.elem, w, items, { ...where, inner: '.Items' });
      }
      return items;
    }
    case 'struct':
      return readStruct(r.bytes(), shape.t);
    case 'special':
      return readSpecial(r.bytes(), shape);
    default:
      throw new ProtoDecodeError(`${shape.name} is never on the wire (field ${named(where)})`);
  }
}

/** One occurrence of a repeated field: one element, or several when packed. */
function readRepeated(
  r: BinaryReader,
  elem: Shape,
  wire: WireType,
  into: GoValue[],
  where: Where,
): void {
  if (elem.k === 'scalar' && wire === WireType.LengthDelimited && WIRE[wireKind(elem)] !== wire) {
    const sub = new BinaryReader(r.bytes());
    while (sub.pos < sub.len) into.push(readScalar(sub, elem));
    return;
  }
  into.push(readOne(r, elem, wire, where));
}

function readSpecial(bytes: Uint8Array, s: Extract<Shape, { k: 'special' }>): GoValue {
  switch (s.s) {
    case 'time':
    case 'microtime': {
      // An empty message is the zero time (Time.Unmarshal); MicroTime keeps microseconds.
      if (bytes.length === 0) return undefined;
      const r = new BinaryReader(bytes);
      const t: GoTime = { s: 0, n: 0 };
      while (r.pos < r.len) {
        const [no, w] = r.tag();
        if (no === 1 && w === WireType.Varint) t.s = toNumber(r.int64());
        else if (no === 2 && w === WireType.Varint) t.n = r.int32();
        else throw new ProtoDecodeError(`proto: unknown field number ${no} in v1.Timestamp`);
      }
      if (s.s === 'time') t.n = 0;
      else t.n = Math.floor(t.n / 1000) * 1000;
      return t;
    }
    case 'quantity': {
      const r = new BinaryReader(bytes);
      let q = '';
      while (r.pos < r.len) {
        const [no, w] = r.tag();
        if (no !== 1 || w !== WireType.LengthDelimited)
          throw new ProtoDecodeError(`proto: unknown field number ${no} in resource.Quantity`);
        q = r.string();
      }
      return q === '' ? undefined : q;
    }
    default:
      return readStruct(bytes, s.t);
  }
}

/** A struct value from its protobuf bytes. */
export function readStruct(bytes: Uint8Array, t: StructInfo): GoStructValue {
  const r = new BinaryReader(bytes);
  const vals: GoStructValue = [];
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    const f = t.byNumber.get(no);
    if (!f) throw new ProtoDecodeError(`proto: unknown field number ${no} in ${t.name}`);
    // Named only for an error (building the name for every field would cost more than the field).
    const where: Where = { t, f };
    const shape = f.shape;
    if (shape.k === 'slice' && !shape.wrapped) {
      const items = (vals[f.index] as GoValue[] | undefined) ?? [];
      readRepeated(r, shape.elem, wire, items, where);
      vals[f.index] = items;
    } else if (shape.k === 'map') {
      if (wire !== WireType.LengthDelimited)
        throw new ProtoDecodeError(`proto: wrong wireType = ${wire} for field ${named(where)}`);
      const m = (vals[f.index] as Map<string, GoValue> | undefined) ?? new Map<string, GoValue>();
      const entry = new BinaryReader(r.bytes());
      let key = '';
      let value: GoValue;
      while (entry.pos < entry.len) {
        const [eno, ewire] = entry.tag();
        if (eno === 1)
          key =
            (readOne(entry, shape.key, ewire, { t, f, inner: '.key' }) as string | undefined) ?? '';
        else if (eno === 2) value = readOne(entry, shape.elem, ewire, { t, f, inner: '.value' });
        else
          throw new ProtoDecodeError(`proto: unknown field number ${eno} in ${shape.name} entry`);
      }
      m.set(key, value);
      vals[f.index] = m;
    } else {
      vals[f.index] = readOne(r, shape, wire, where);
    }
  }
  return vals;
}
