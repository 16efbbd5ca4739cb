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

/** The object a body holds, or undefined when it is not JSON or protobuf or does not decode. */
export function decodeBody(body: Buffer, contentType: string | undefined): Json | undefined {
  if (body.length === 0) return undefined;
  const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
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
 * Splits a watch stream into its events as its chunks arrive. JSON events are whole JSON values
 * written back to back (kube-apiserver ends each with a newline); protobuf events are
 * length-delimited frames. Events that do not decode are skipped.
 */
export class WatchStreamDecoder {
  private pending: Buffer = Buffer.alloc(0);
  private readonly protobuf: boolean;

  constructor(
    contentType: string | undefined,
    private readonly onEvent: (ev: DecodedWatchEvent) => void,
  ) {
    const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
    this.protobuf = media.startsWith(PROTOBUF);
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
      try {
        this.onEvent(decodeProtobufWatchEvent(frame));
      } catch {
        // Not a kind the generated API knows: forwarded, not recorded.
      }
    }
    this.pending = this.pending.subarray(at);
  }

  private lines(): void {
    let at = 0;
    for (;;) {
      const nl = this.pending.indexOf(0x0a, at);
      if (nl < 0) break;
      const line = this.pending.subarray(at, nl).toString('utf8').trim();
      at = nl + 1;
      if (!line) continue;
      try {
        const ev = JSON.parse(line) as { type?: unknown; object?: unknown };
        if (typeof ev.type === 'string' && typeof ev.object === 'object' && ev.object !== null)
          this.onEvent({ type: ev.type, object: ev.object as Json });
      } catch {
        // Half an event cannot end in a newline inside JSON text: a bad line is skipped.
      }
    }
    this.pending = this.pending.subarray(at);
  }
}
