import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { allKinds } from '../../../src/cluster/api/apigraph';
import { StatusError } from '../../../src/cluster/apimachinery/errors';
import {
  decodeProtobufObject,
  encodeProtobufObject,
  encodeProtobufWatchEvent,
} from '../../../src/cluster/api/protobuf';
import { exampleOf, randomOf, rng } from '../apiexamples';
import { goAvailable, goConform } from '../goconform';

type Json = Record<string, unknown>;

/** One kind per Go type (WatchEvent and the option kinds are registered in every group). */
const KINDS = [...new Map(allKinds().map((k) => [k.type, k])).values()];

const MAGIC = Buffer.from('k8s\0', 'binary');

/** The object's bytes inside the envelope (runtime.Unknown's raw = 2). */
function rawOf(body: Uint8Array): Buffer {
  const b = Buffer.from(body);
  assert.ok(b.subarray(0, 4).equals(MAGIC));
  // typeMeta = 1 (length-delimited), then raw = 2: lengths are varints.
  let i = 4;
  const varint = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const x = b[i++];
      v += (x & 0x7f) * 2 ** shift;
      if (!(x & 0x80)) return v;
      shift += 7;
    }
  };
  assert.equal(b[i++], 0x0a);
  const typeMetaLength = varint();
  i += typeMetaLength;
  assert.equal(b[i++], 0x12);
  const n = varint();
  return b.subarray(i, i + n);
}

/** Every value of `sent` is in `got` (which may add the zero values Go writes out). */
function assertKept(sent: unknown, got: unknown, path = ''): void {
  if (sent !== null && typeof sent === 'object') {
    assert.equal(typeof got, 'object', `${path} is missing`);
    assert.ok(got !== null, `${path} is null`);
    for (const [k, v] of Object.entries(sent)) assertKept(v, (got as Json)[k], `${path}.${k}`);
    if (Array.isArray(sent)) assert.equal((got as unknown[]).length, sent.length, path);
    return;
  }
  assert.deepEqual(got, sent, `${path} changed`);
}

function roundTrip(obj: Json): { bytes: Uint8Array; back: Json } {
  const bytes = encodeProtobufObject(obj);
  return { bytes, back: decodeProtobufObject(bytes) };
}

test('the API graph serves every kind of the pinned release, with their lists', () => {
  const names = new Set(allKinds().map((k) => `${k.apiVersion}/${k.kind}`));
  for (const k of [
    'v1/Pod',
    'v1/PodList',
    'apps/v1/Deployment',
    'apps/v1/DeploymentList',
    'apiextensions.k8s.io/v1/CustomResourceDefinition',
    'apiregistration.k8s.io/v1/APIService',
    'resource.k8s.io/v1/ResourceClaim',
    'v1/Status',
    'v1/WatchEvent',
    'v1/DeleteOptions',
  ])
    assert.ok(names.has(k), k);
  assert.ok(KINDS.length > 300, `${KINDS.length} Go types`);
});

test('an example of every kind, every field filled, comes back from protobuf with every field', () => {
  for (const k of KINDS) {
    const obj = exampleOf(k.apiVersion, k.kind);
    const { bytes, back } = roundTrip(obj);
    assertKept(obj, back, `${k.apiVersion}/${k.kind}`);
    // Encoding what was decoded writes the same bytes: nothing was lost or added on the way.
    assert.ok(Buffer.from(encodeProtobufObject(back)).equals(Buffer.from(bytes)), k.kind);
  }
});

test('random objects of random kinds keep every field through protobuf and encode stably', () => {
  const next = rng(28);
  for (let i = 0; i < 400; i++) {
    const k = KINDS[Math.floor(next() * KINDS.length)];
    const obj = randomOf(k.apiVersion, k.kind, next);
    const { bytes, back } = roundTrip(obj);
    // Zero scalars and empty lists are Go's zero values: compare with what Go makes of them.
    assertKept(JSON.parse(JSON.stringify(back)), back);
    for (const [key, v] of Object.entries(obj)) {
      if (v === '' || v === 0 || v === false) continue;
      if (typeof v === 'object' && v !== null && Object.keys(v).length === 0) continue;
      assert.ok(key in back, `${k.kind}.${key} dropped (seed 28, object ${i})`);
    }
    assert.ok(Buffer.from(encodeProtobufObject(back)).equals(Buffer.from(bytes)), k.kind);
  }
});

/**
 * A memcached operator's Deployment as client-go sends it: the bytes are k8s.io/api's own
 * Marshal of the object below (apps/v1 Deployment, release 1.36.3), in the k8s envelope.
 */
const MEMCACHED_PROTO =
  '6b3873000a150a07617070732f7631120a4465706c6f796d656e7412a9020a320a096d656d63616368656412001a0764656661756c7422002a0032003800420808a5facdac0610005a080a0361707012016d12e4010801120a0a080a0361707012016d1ab6010a1a0a0012001a0022002a003200380042005a080a0361707012016d12970112630a096d656d636163686564120d6d656d6361636865643a312e362a0032140a096d656d636163686564100018cb5722002a00420f0a0d0a0363707512060a043530306d6a0072007a0e0a051203414c4c20e90728013800800100880100900100a201001a00320042004a0052005800600068007214180152100a0e52756e74696d6544656661756c748201008a01009a0100c2010022170a0012130a06080010011a001209080110001a03323525280038001a0c0800100018002000280038001a002200';

const memcached = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  metadata: {
    name: 'memcached',
    namespace: 'default',
    creationTimestamp: '2024-01-02T03:04:05Z',
    labels: { app: 'm' },
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'm' } },
    template: {
      metadata: { labels: { app: 'm' } },
      spec: {
        containers: [
          {
            name: 'memcached',
            image: 'memcached:1.6',
            ports: [{ name: 'memcached', containerPort: 11211 }],
            resources: { limits: { cpu: '500m' } },
            securityContext: {
              capabilities: { drop: ['ALL'] },
              runAsUser: 1001,
              runAsNonRoot: true,
              allowPrivilegeEscalation: false,
            },
          },
        ],
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      },
    },
    strategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: '25%' } },
  },
  status: {},
};

test('a memcached Deployment client-go encodes keeps its seccompProfile and capabilities.drop', () => {
  const got = decodeProtobufObject(Buffer.from(MEMCACHED_PROTO, 'hex'));
  assert.deepEqual(got, memcached);
  assert.equal(JSON.stringify(got), JSON.stringify(memcached), 'Go json.Marshal field order');
  // And encoding it again writes client-go's bytes exactly.
  assert.equal(Buffer.from(encodeProtobufObject(memcached)).toString('hex'), MEMCACHED_PROTO);
});

/** A body of the k8s envelope around `raw`, as client-go writes it. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const w = new BinaryWriter();
  w.raw(MAGIC);
  w.tag(1, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).string(apiVersion);
  w.tag(2, WireType.LengthDelimited).string(kind);
  w.join();
  w.tag(2, WireType.LengthDelimited).bytes(raw);
  return Buffer.from(w.finish());
}

function isBadRequest(message: string | RegExp) {
  return (err: unknown) =>
    err instanceof StatusError &&
    err.code === 400 &&
    (typeof message === 'string' ? err.message === message : message.test(err.message));
}

test('a field number the API does not define is a 400 naming it, not dropped', () => {
  const extra = new BinaryWriter().tag(111, WireType.Varint).int32(1).finish();
  const raw = Buffer.concat([rawOf(encodeProtobufObject(memcached)), extra]);
  assert.throws(
    () => decodeProtobufObject(envelope('apps/v1', 'Deployment', raw)),
    isBadRequest(
      'Deployment in version "v1" cannot be handled as a Deployment: proto: unknown field number 111 in v1.Deployment',
    ),
  );
});

test("a field of the wrong wire type is the decoder's 400", () => {
  // metadata (1) sent as a varint.
  const raw = new BinaryWriter().tag(1, WireType.Varint).int32(1).finish();
  assert.throws(
    () => decodeProtobufObject(envelope('v1', 'Service', raw)),
    isBadRequest(
      'Service in version "v1" cannot be handled as a Service: proto: wrong wireType = 0 for field Service.ObjectMeta',
    ),
  );
});

test('a body without the k8s prefix is refused as the serializer refuses it', () => {
  assert.throws(
    () => decodeProtobufObject(Buffer.from([0x0a, 0x00])),
    isBadRequest(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    ),
  );
});

test('a watch event is a length-delimited WatchEvent without the prefix, its object enveloped', () => {
  const frame = Buffer.from(encodeProtobufWatchEvent('ADDED', memcached));
  const n = frame.readUInt32BE(0);
  assert.equal(frame.length, 4 + n);
  // metav1.WatchEvent: type = 1, object = 2 (a RawExtension: raw = 1).
  const r = new BinaryReader(frame.subarray(4));
  assert.deepEqual(r.tag(), [1, WireType.LengthDelimited]);
  assert.equal(r.string(), 'ADDED');
  assert.deepEqual(r.tag(), [2, WireType.LengthDelimited]);
  const ext = new BinaryReader(r.bytes());
  assert.deepEqual(ext.tag(), [1, WireType.LengthDelimited]);
  assert.deepEqual(decodeProtobufObject(ext.bytes()), memcached);
  assert.equal(ext.pos, ext.len);
  assert.equal(r.pos, r.len);
});

test("kubernetes' own Marshal writes the same bytes and json.Marshal the same JSON, for every kind", (t) => {
  if (!goAvailable()) {
    t.skip('skipped: Go is not installed, so k8s.io/api cannot judge the encoding');
    return;
  }
  const next = rng(7);
  const objects = [
    ...KINDS.map((k) => exampleOf(k.apiVersion, k.kind)),
    ...Array.from({ length: 300 }, () => {
      const k = KINDS[Math.floor(next() * KINDS.length)];
      return randomOf(k.apiVersion, k.kind, next);
    }),
  ];
  const answers = goConform(objects);
  assert.equal(answers.length, objects.length);
  const failures: string[] = [];
  objects.forEach((obj, i) => {
    const go = answers[i];
    const name = `${String(obj.apiVersion)}/${String(obj.kind)} #${i}`;
    if (go.error) return failures.push(`${name}: Go: ${go.error}`);
    const bytes = encodeProtobufObject(obj);
    if (!rawOf(bytes).equals(go.proto!)) failures.push(`${name}: bytes differ`);
    const back = decodeProtobufObject(bytes);
    const want = JSON.stringify({ kind: obj.kind, apiVersion: obj.apiVersion, ...go.json });
    if (JSON.stringify(back) !== want)
      failures.push(
        `${name}: JSON differs\n  go:   ${want.slice(0, 400)}\n  ours: ${JSON.stringify(back).slice(0, 400)}`,
      );
  });
  assert.deepEqual(failures.slice(0, 10), []);
});
