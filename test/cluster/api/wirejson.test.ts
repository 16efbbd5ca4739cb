import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { allKinds, kindStruct } from '../../../src/cluster/api/apigraph';
import { structFromJson, structToJson } from '../../../src/cluster/api/govalue';
import { writeJsonStruct } from '../../../src/cluster/api/jsonwire';
import { readStructFrom, writeStruct } from '../../../src/cluster/api/protowire';
import { readJsonStruct } from '../../../src/cluster/api/wirejson';
import { exampleOf, randomOf, rng } from '../apiexamples';

type Json = Record<string, unknown>;

const KINDS = [...new Map(allKinds().map((k) => [k.type, k])).values()];

/** The reference: JSON → Go value → wire, and wire → Go value → JSON (protowire, govalue). */
function viaGoValue(apiVersion: string, kind: string, obj: Json) {
  const t = kindStruct(apiVersion, kind)!;
  const w = new BinaryWriter();
  writeStruct(w, t, structFromJson(t, obj));
  const bytes = w.finish();
  return { t, bytes, json: structToJson(t, readStructFrom(new BinaryReader(bytes), t), {}) };
}

function direct(t: ReturnType<typeof kindStruct> & object, obj: Json) {
  const w = new BinaryWriter();
  writeJsonStruct(w, t, obj);
  const bytes = w.finish();
  return { bytes, json: readJsonStruct(bytes, t, {}) };
}

test('JSON straight to the wire and back matches the way through the Go value, for every kind', () => {
  const next = rng(33);
  for (const k of KINDS) {
    for (const obj of [exampleOf(k.apiVersion, k.kind), randomOf(k.apiVersion, k.kind, next)]) {
      const ref = viaGoValue(k.apiVersion, k.kind, obj);
      const got = direct(ref.t, obj);
      const what = `${k.apiVersion}/${k.kind}`;
      assert.ok(Buffer.from(got.bytes).equals(Buffer.from(ref.bytes)), `${what}: bytes differ`);
      // The same JSON text: values, and the order Go writes the fields in.
      assert.equal(JSON.stringify(got.json), JSON.stringify(ref.json), `${what}: JSON differs`);
    }
  }
});

test('an object cut short anywhere inside is an error, never a partial object', () => {
  const t = kindStruct('apps/v1', 'Deployment')!;
  const w = new BinaryWriter();
  writeJsonStruct(w, t, exampleOf('apps/v1', 'Deployment'));
  const bytes = w.finish();
  // Cutting inside a top-level field's value always leaves a length or a varint unfinished.
  const fieldStarts = new Set<number>();
  const r = new BinaryReader(bytes);
  while (r.pos < r.len) {
    fieldStarts.add(r.pos);
    r.skip(r.tag()[1]);
  }
  for (let cut = 1; cut < bytes.length; cut++) {
    if (fieldStarts.has(cut)) continue;
    assert.throws(() => readJsonStruct(bytes.subarray(0, cut), t, {}), `cut at ${cut}`);
  }
});

test("a label map entry of the wrong wire type or number is the decoder's error, naming it", () => {
  const t = kindStruct('v1', 'ConfigMap')!;
  const entry = (write: (w: BinaryWriter) => void) => {
    const meta = new BinaryWriter();
    meta.tag(11, WireType.LengthDelimited).fork(); // ObjectMeta.labels
    write(meta);
    meta.join();
    return new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(meta.finish()).finish();
  };
  assert.throws(
    () =>
      readJsonStruct(
        entry((w) => w.tag(1, WireType.Varint).int32(1)),
        t,
        {},
      ),
    /^Error: proto: wrong wireType = 0 for field ObjectMeta.Labels.key$/,
  );
  assert.throws(
    () =>
      readJsonStruct(
        entry((w) => w.tag(3, WireType.LengthDelimited).string('x')),
        t,
        {},
      ),
    /proto: unknown field number 3 in map\[string\]string entry/,
  );
  const ok = readJsonStruct(
    entry((w) =>
      w.tag(1, WireType.LengthDelimited).string('b').tag(2, WireType.LengthDelimited).string('2'),
    ),
    t,
    {},
  );
  assert.deepEqual((ok.metadata as Json).labels, { b: '2' });
});

test('labels that arrive unsorted are written sorted, as json.Marshal writes a map', () => {
  const t = kindStruct('v1', 'ConfigMap')!;
  const meta = new BinaryWriter();
  for (const [k, v] of [
    ['z', '1'],
    ['a', '2'],
  ]) {
    meta.tag(11, WireType.LengthDelimited).fork();
    meta.tag(1, WireType.LengthDelimited).string(k).tag(2, WireType.LengthDelimited).string(v);
    meta.join();
  }
  const bytes = new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(meta.finish()).finish();
  const labels = (readJsonStruct(bytes, t, {}).metadata as Json).labels as Json;
  assert.deepEqual(Object.keys(labels), ['a', 'z']);
});

test('strings read again come back equal, ASCII or not, short or long', () => {
  const t = kindStruct('v1', 'ConfigMap')!;
  const values = ['x', 'same', 'same', 'sáme', 'ß'.repeat(40), 'a'.repeat(33), 'a'.repeat(32)];
  for (const v of values) {
    const w = new BinaryWriter();
    writeJsonStruct(w, t, { metadata: { name: v } });
    const back = readJsonStruct(w.finish(), t, {});
    assert.equal((back.metadata as Json).name, v);
  }
});
