/**
 * Kubernetes' protobuf media type (`application/vnd.kubernetes.protobuf`) for every built-in
 * kind, from the API graph generated from the pinned release (apigraph.ts): what kubectl's typed
 * commands and client-go programs send and, when their Accept asks for it first, receive.
 *
 * A body is `k8s\0` and a runtime.Unknown (typeMeta = 1, raw = 2, contentEncoding = 3,
 * contentType = 4) whose raw bytes are the object in its generated.proto encoding
 * (apimachinery's protobuf.Serializer). A watch streams WatchEvents without the prefix, each
 * behind its length as four big-endian bytes (the RawSerializer and the LengthDelimitedFramer),
 * with the event's object in the full envelope.
 */
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { kindStruct } from './apigraph';
import { newBadRequest, newUnsupportedMediaType } from '../apimachinery/errors';
import { writeJsonStruct } from './jsonwire';
import { readJsonStruct } from './wirejson';

type Json = Record<string, unknown>;

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

function readEnvelope(body: Uint8Array): Envelope {
  const env: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array() };
  const r = new BinaryReader(body.subarray(MAGIC.length));
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    if (no === 1 && wire === WireType.LengthDelimited) {
      const tm = new BinaryReader(r.bytes());
      while (tm.pos < tm.len) {
        const [tno, twire] = tm.tag();
        if (tno === 1 && twire === WireType.LengthDelimited) env.apiVersion = tm.string();
        else if (tno === 2 && twire === WireType.LengthDelimited) env.kind = tm.string();
        else tm.skip(twire);
      }
    } else if (no === 2 && wire === WireType.LengthDelimited) env.raw = r.bytes();
    else r.skip(wire);
  }
  return env;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The object's JSON, exactly as kube-apiserver encodes the Go struct the body decodes into. */
export function decodeProtobufObject(body: Uint8Array): Json {
  if (body.length < MAGIC.length || MAGIC.some((m, i) => body[i] !== m))
    throw newBadRequest(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  let env: Envelope;
  try {
    env = readEnvelope(body);
  } catch (err) {
    throw newBadRequest(`unable to decode protobuf body: ${message(err)}`);
  }
  const { apiVersion, kind } = env;
  const t = kindStruct(apiVersion, kind);
  if (!t) throw newUnsupportedMediaType(['application/json', 'application/yaml']);
  try {
    return readJsonStruct(env.raw, t, { kind, apiVersion });
  } catch (err) {
    // The decoder's error, wrapped as the create and update handlers' transformDecodeError does.
    const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
    throw newBadRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${message(err)}`,
    );
  }
}

/** Whether an object (by its apiVersion and kind) has a protobuf encoding: built-in kinds only. */
export function hasProtobuf(obj: unknown): boolean {
  const o = obj as Json | null;
  return (
    typeof o?.apiVersion === 'string' &&
    typeof o.kind === 'string' &&
    kindStruct(o.apiVersion, o.kind) !== undefined
  );
}

/** The envelope, the object's bytes written in place as its `raw` (no copy of them). */
function writeEnvelope(w: BinaryWriter, apiVersion: string, kind: string, raw: () => void): void {
  w.raw(MAGIC);
  w.tag(1, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).string(apiVersion);
  w.tag(2, WireType.LengthDelimited).string(kind);
  w.join();
  w.tag(2, WireType.LengthDelimited).fork();
  raw();
  w.join();
  w.tag(3, WireType.LengthDelimited).string('');
  w.tag(4, WireType.LengthDelimited).string('');
}

/**
 * A built-in object, list or Status in the protobuf envelope, as the apiserver answers a client
 * whose Accept prefers protobuf. Throws for a kind the graph does not know (hasProtobuf first).
 */
export function encodeProtobufObject(obj: Json): Uint8Array {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const t = kindStruct(apiVersion, kind);
  if (!t) throw new Error(`no protobuf encoding for ${apiVersion}/${kind}`);
  return withWriter((w) => writeEnvelope(w, apiVersion, kind, () => writeJsonStruct(w, t, obj)));
}

/**
 * One writer for every object encoded: its buffer, grown to the largest object yet, is kept
 * between calls (finish() copies the bytes out and rewinds), so an object is not written through
 * five reallocations from 128 bytes up. A writer grown past a megabyte is let go.
 */
let spare: BinaryWriter | undefined;

function withWriter(write: (w: BinaryWriter) => void): Uint8Array {
  // Taken, not shared: a nested call (none today) would get a writer of its own.
  const w = spare ?? new BinaryWriter();
  spare = undefined;
  let bytes: Uint8Array;
  try {
    write(w);
    bytes = w.finish();
  } catch (err) {
    w.finish();
    spare = w;
    throw err;
  }
  if (bytes.length <= 1 << 20) spare = w;
  return bytes;
}

/**
 * One watch event as a protobuf watch stream carries it: the length of a metav1.WatchEvent
 * (type = 1, object = 2, a RawExtension whose raw = 1 is the object's envelope), then the event.
 */
export function encodeProtobufWatchEvent(type: string, obj: Json): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).string(type);
  w.tag(2, WireType.LengthDelimited).fork();
  w.tag(1, WireType.LengthDelimited).bytes(encodeProtobufObject(obj));
  w.join();
  const event = w.finish();
  const frame = new Uint8Array(4 + event.length);
  new DataView(frame.buffer).setUint32(0, event.length, false);
  frame.set(event, 4);
  return frame;
}

/**
 * One metav1.WatchEvent of a protobuf watch stream, its length prefix already taken off (the
 * inverse of encodeProtobufWatchEvent): the type and the object decoded from its envelope.
 */
export function decodeProtobufWatchEvent(event: Uint8Array): { type: string; object: Json } {
  const r = new BinaryReader(event);
  let type = '';
  let raw: Uint8Array = new Uint8Array();
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    if (no === 1 && wire === WireType.LengthDelimited) type = r.string();
    else if (no === 2 && wire === WireType.LengthDelimited) {
      const ext = new BinaryReader(r.bytes());
      while (ext.pos < ext.len) {
        const [eno, ewire] = ext.tag();
        if (eno === 1 && ewire === WireType.LengthDelimited) raw = ext.bytes();
        else ext.skip(ewire);
      }
    } else r.skip(wire);
  }
  return { type, object: decodeProtobufObject(raw) };
}
