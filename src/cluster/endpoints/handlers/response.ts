/**
 * Writing a handler's answer, as k8s.io/apiserver's `handlers/responsewriters`: JSON (indented
 * when asked), admission warnings as `Warning` headers, and only once the change is durable.
 */
import type { ServerResponse } from 'node:http';
import { negotiatedProtobuf, negotiatedYaml } from '../negotiation';
import { toYaml } from '../../apimachinery/yaml';
import { PROTOBUF, encodeProtobufObject, hasProtobuf } from '../../api/protobuf';
import type { KubeObject } from '../../apimachinery/types';
import { objectKey, type RequestScope } from './scope';

export function sendJson(res: ServerResponse, code: number, obj: unknown, pretty = false): void {
  writeJson(res, code, pretty ? JSON.stringify(obj, null, 2) : JSON.stringify(obj));
}

/**
 * Bodies from this size on go out after their headers instead of with them: node's http joins
 * headers and a string body into one new string (a copy of the whole body, in V8's large-object
 * space, freed only by a major GC), while a string written alone is copied into memory that is
 * freed as soon as the socket has taken it. (V8 keeps strings above 128 KiB as large objects.)
 * A watch event of an object this big is written in pieces for the same reason (watch.ts).
 */
export const SEPARATE_HEADERS_BYTES = 128 * 1024;

function writeJson(res: ServerResponse, code: number, text: string): void {
  const length = Buffer.byteLength(text);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': length,
    'Cache-Control': 'no-cache, private',
  });
  if (length >= SEPARATE_HEADERS_BYTES) res.flushHeaders();
  res.end(text);
}

/**
 * A write is answered only once it is durable (with `serve --state`: its log record fsynced),
 * as kube-apiserver answers once etcd has committed; a write that cannot be made so is a 500.
 * A read waits too, so no client sees a change that a crash could still take back.
 * (Synchronously when nothing is waiting for the disk: the common case costs nothing.)
 */
function whenDurable(s: RequestScope, fn: () => void): void | Promise<void> {
  return s.dryRun || s.cluster.store.durable ? fn() : s.cluster.store.sync().then(fn);
}

function setWarnings(s: RequestScope): void {
  writeWarnings(s.res, s.warnings);
}

/**
 * The request's warnings as `Warning: 299` headers. An error answer carries them too: the
 * apiserver's warning recorder sets its headers as warnings come, so a body refused as invalid
 * under `fieldValidation=Warn` still says which fields were unknown. A warning recorded twice
 * goes out once, as the recorder (filters/warning.go) keeps each text once.
 */
export function writeWarnings(res: ServerResponse, warnings: readonly string[] | undefined): void {
  if (warnings?.length && !res.headersSent)
    res.setHeader(
      'Warning',
      [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`),
    );
}

/** A Status (or any object) as the request negotiated: protobuf or YAML when it did, else JSON. */
export function sendNegotiated(res: ServerResponse, code: number, obj: unknown): void {
  if (negotiatedProtobuf.has(res) && hasProtobuf(obj))
    return writeProtobuf(res, code, encodeProtobufObject(obj as Record<string, unknown>));
  if (negotiatedYaml.has(res)) return writeYaml(res, code, obj);
  sendJson(res, code, obj);
}

function writeYaml(res: ServerResponse, code: number, obj: unknown): void {
  const text = toYaml(obj);
  res.writeHead(code, {
    'Content-Type': 'application/yaml',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

function writeProtobuf(res: ServerResponse, code: number, body: Uint8Array): void {
  res.writeHead(code, {
    'Content-Type': PROTOBUF,
    'Content-Length': body.length,
    'Cache-Control': 'no-cache, private',
  });
  res.end(body);
}

/** Sends `obj` serialized: in protobuf when the request negotiated it and the kind has it. */
export function send(s: RequestScope, code: number, obj: unknown): void | Promise<void> {
  return whenDurable(s, () => {
    setWarnings(s);
    if (s.protobuf && hasProtobuf(obj))
      return writeProtobuf(s.res, code, encodeProtobufObject(obj as Record<string, unknown>));
    if (s.yaml) return writeYaml(s.res, code, obj);
    sendJson(s.res, code, obj, s.pretty);
  });
}

/** Sends JSON text already serialized (the store's cached form of an object or list). */
export function sendRaw(s: RequestScope, code: number, text: string): void | Promise<void> {
  return whenDurable(s, () => {
    setWarnings(s);
    if (s.pretty || s.protobuf || s.yaml) {
      const obj: unknown = JSON.parse(text);
      if (s.protobuf && hasProtobuf(obj))
        return writeProtobuf(s.res, code, encodeProtobufObject(obj as Record<string, unknown>));
      if (s.yaml) return writeYaml(s.res, code, obj);
      return sendJson(s.res, code, obj, s.pretty);
    }
    writeJson(s.res, code, text);
  });
}

/** A written object: its stored JSON is already cached, so send that rather than serializing again. */
export function sendWritten(s: RequestScope, code: number, out: KubeObject): void | Promise<void> {
  const stored = s.dryRun
    ? undefined
    : s.cluster.peek(s.type, objectKey(s, out.metadata.name ?? ''));
  if (
    stored &&
    stored.metadata.resourceVersion === out.metadata.resourceVersion &&
    stored.apiVersion === out.apiVersion &&
    stored.kind === out.kind
  ) {
    return sendRaw(s, code, s.cluster.jsonOf(stored));
  }
  return send(s, code, out);
}

export { partialObjectMetadata } from '../partialmetadata';
