/**
 * Bodies as the proxy sees them go by: JSON or Kubernetes protobuf (decoded with the generated
 * API, api/protobuf.ts), and watch streams in either framing — JSON events one after another,
 * protobuf events each behind its four-byte length. Anything else (YAML, tables' text, logs) is
 * forwarded untouched and not decoded.
 */
import { decodeProtobufObject, decodeProtobufWatchEvent, PROTOBUF } from '../cluster/api/protobuf';

type Json = Record<string, unknown>;

export interface DecodedWatchEvent {
  type: string;
  object: Json;
}

const mediaOf = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0].trim().toLowerCase();

/** Whether a body of this content type is one `decodeBody` reads (JSON or protobuf). */
export function isDecodable(contentType: string | undefined): boolean {
  const media = mediaOf(contentType);
  return media === PROTOBUF || media === 'application/json' || media.endsWith('+json');
}

/** The object a body holds, or undefined when it is not JSON or protobuf or does not decode. */
export function decodeBody(body: Buffer, contentType: string | undefined): Json | undefined {
  if (body.length === 0) return undefined;
  const media = mediaOf(contentType);
  try {
    if (media === PROTOBUF) return decodeProtobufObject(body);
    if (media === 'application/json' || media.endsWith('+json')) {
      const v: unknown = JSON.parse(body.toString('utf8'));
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
    }
  } catch {
    // A kind the generated API does not know (a CRD's has no protobuf), or a broken body: the
    // client gets it as it came; the record just has no object.
  }
  return undefined;
}

/**
 * One event of a watch stream as `WatchStreamSplitter` cut it: a protobuf frame (without its
 * length), or a JSON event's bytes. Undefined when it does not decode (a kind the generated API
 * does not know, a broken line).
 */
export function decodeWatchFrame(frame: Buffer, protobuf: boolean): DecodedWatchEvent | undefined {
  try {
    if (protobuf) return decodeProtobufWatchEvent(frame);
    const ev = JSON.parse(frame.toString('utf8')) as { type?: unknown; object?: unknown };
    if (typeof ev.type === 'string' && typeof ev.object === 'object' && ev.object !== null)
      return { type: ev.type, object: ev.object as Json };
  } catch {
    // Not a kind the generated API knows, or half an event cannot end in a newline inside JSON
    // text: forwarded, not recorded.
  }
  return undefined;
}

/**
 * Cuts a watch stream into its events as its chunks arrive, without decoding them. JSON events
 * are whole JSON values written back to back (kube-apiserver ends each with a newline); protobuf
 * events are length-delimited frames.
 */
export class WatchStreamSplitter {
  private pending: Buffer = Buffer.alloc(0);
  readonly protobuf: boolean;

  constructor(
    contentType: string | undefined,
    private readonly onFrame: (frame: Buffer) => void,
  ) {
    this.protobuf = mediaOf(contentType).startsWith(PROTOBUF);
  }

  push(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    if (this.protobuf) this.frames();
    else this.lines();
  }

  private frames(): void {
    let at = 0;
    while (this.pending.length - at >= 4) {
      const len = this.pending.readUInt32BE(at);
      if (this.pending.length - at - 4 < len) break;
      const frame = this.pending.subarray(at + 4, at + 4 + len);
      at += 4 + len;
      this.onFrame(frame);
    }
    this.pending = this.pending.subarray(at);
  }

  private lines(): void {
    let at = 0;
    for (;;) {
      const nl = this.pending.indexOf(0x0a, at);
      if (nl < 0) break;
      const line = this.pending.subarray(at, nl);
      at = nl + 1;
      // Blank lines (and a lone carriage return) carry no event.
      if (line.length > 1 || (line.length === 1 && line[0] !== 0x0d)) this.onFrame(line);
    }
    this.pending = this.pending.subarray(at);
  }
}

/** Splits a watch stream into its events, decoded, as its chunks arrive (undecodable ones skipped). */
export class WatchStreamDecoder {
  private readonly splitter: WatchStreamSplitter;

  constructor(contentType: string | undefined, onEvent: (ev: DecodedWatchEvent) => void) {
    this.splitter = new WatchStreamSplitter(contentType, (frame) => {
      const ev = decodeWatchFrame(frame, this.splitter.protobuf);
      if (ev) onEvent(ev);
    });
  }

  push(chunk: Buffer): void {
    this.splitter.push(chunk);
  }
}
