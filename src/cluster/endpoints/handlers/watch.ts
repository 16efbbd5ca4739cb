/**
 * A watch of a collection (k8s.io/apiserver's handlers/watch.go): a chunked stream of
 * newline-delimited events, as Tables or PartialObjectMetadata when asked, ended by the client,
 * the server's time-out, an injected fault, or the server closing. A custom resource whose CRD
 * converts by webhook is watched as stored and each event converted in turn, in order; an event
 * that cannot be converted ends the watch with an ERROR event carrying the conversion's 500.
 */
import { decodedText } from '../../apimachinery/clone';
import { watchUnderFault, type FaultEffect } from '../../faults';
import {
  queryBool,
  sendInitialEventsOf,
  watchTimeoutSeconds,
} from '../../apimachinery/listoptions';
import { PROTOBUF, encodeProtobufWatchEvent, hasProtobuf } from '../../api/protobuf';
import { toTable } from '../table';
import type { ListOptions, WatchEvent } from '../../apimachinery/types';
import { watchWaitsFor } from '../../storage/watchcache';
import { untilFresh } from './fresh';
import { WatchStream } from '../watchstream';
import { SEPARATE_HEADERS_BYTES, partialObjectMetadata } from './response';
import type { RequestScope } from './scope';
import { convertsByWebhook } from '../../apiextensions/conversion';
import { StatusError } from '../../apimachinery/errors';

/** What the server sets for every watch it serves. */
export interface WatchServing {
  /** Unsent bytes a stream may add to its initial events before it is closed. */
  backlogLimit: number;
  /** `serve --watch-timeout`. */
  maxWatchSeconds: number | undefined;
  /** kube-apiserver's `--min-request-timeout`. */
  minRequestTimeoutSeconds: number | undefined;
  /** The watches open now; the server ends each when it closes. */
  closers: Set<() => void>;
}

export function watchResource(
  s: RequestScope,
  listOpts: ListOptions,
  serving: WatchServing,
  fault?: FaultEffect,
): void | Promise<void> {
  const { cluster } = s;
  const sendInitialEvents = sendInitialEventsOf(s.q);
  const rv = watchWaitsFor(listOpts, sendInitialEvents);
  if (rv <= cluster.store.resourceVersion)
    return serveWatch(s, listOpts, sendInitialEvents, serving, fault);
  // A WatchList from a version the store has not reached waits for it before the watch is
  // accepted (headers included), as the cacher does; after the wait, the watch serves the
  // initial events, or its ERROR event if the store is still behind.
  return untilFresh(s, rv, serving.closers).then((answer) => {
    if (answer) serveWatch(s, listOpts, sendInitialEvents, serving, fault);
  });
}

function serveWatch(
  s: RequestScope,
  listOpts: ListOptions,
  sendInitialEvents: boolean | undefined,
  serving: WatchServing,
  fault: FaultEffect | undefined,
): void {
  const { cluster, t, type, q, req, res, metaOnly, table } = s;
  const includeObject = q.get('includeObject') ?? undefined;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stream.close();
    w?.stop();
    serving.closers.delete(end);
    res.end();
  };
  const write = (ev: WatchEvent) => {
    if (ended) return;
    let object: unknown = ev.object;
    if (metaOnly && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED'))
      object = partialObjectMetadata(ev.object, metaOnly);
    else if (table && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')) {
      object = toTable(t, [ev.object], cluster.clock.now(), {
        resourceVersion: ev.object.metadata.resourceVersion,
        includeObject: includeObject ?? 'Object',
      });
    }
    // A big object goes out as the JSON it was decoded from (the stored object's cached text),
    // between the halves of its event: serializing the shared copy again would make one more
    // copy of it for every watcher (kube-apiserver's watch cache likewise encodes an event once
    // for all its watchers).
    if (s.protobuf && hasProtobuf(object)) {
      // A built-in kind's watch, negotiated to protobuf: length-delimited WatchEvent frames.
      let frame: Uint8Array;
      try {
        frame = encodeProtobufWatchEvent(ev.type, object as Record<string, unknown>);
      } catch {
        // An object its Go type cannot hold cannot be framed; the client re-lists on the end.
        return end();
      }
      return stream.send(frame, ev.type === 'ERROR');
    }
    const text = object === ev.object ? decodedText(ev.object) : undefined;
    if (text !== undefined && text.length >= SEPARATE_HEADERS_BYTES)
      stream.send(
        [`{"type":${JSON.stringify(ev.type)},"object":`, text, '}\n'],
        ev.type === 'ERROR',
      );
    else stream.send(JSON.stringify({ type: ev.type, object }) + '\n', ev.type === 'ERROR');
  };
  const converting = convertsByWebhook(t.conversion) ? convertingInOrder(s, write, end) : undefined;
  const deliver = converting ? converting.deliver : write;
  const stream = new WatchStream({
    res,
    store: cluster.store,
    backlogLimit: serving.backlogLimit,
    resource: t.info.plural,
    end,
  });
  const timeout = watchTimeoutSeconds(q, {
    max: serving.maxWatchSeconds,
    minRequestTimeout: serving.minRequestTimeoutSeconds,
  });
  const w: { stop(): void } = watchUnderFault(fault, cluster.clock, deliver, end, (deliver) =>
    cluster.watch(
      type,
      {
        ...listOpts,
        unconverted: true,
        ...(queryBool(q, 'allowWatchBookmarks') ? { allowWatchBookmarks: true } : {}),
        ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
        ...(timeout ? { timeoutSeconds: timeout } : {}),
      },
      deliver,
      end,
    ),
  );
  // Events are delivered from a microtask queued by watch(): this one runs after the first batch
  // (converted events are sent once their calls are answered).
  queueMicrotask(() => {
    if (converting) void converting.sent().then(() => stream.initialSent());
    else stream.initialSent();
  });
  // Headers go out once the watch is accepted, so a bad request still gets its own status code;
  // events arrive from a microtask, after this.
  res.writeHead(200, {
    // As handlers/watch.go labels a stream of any serializer but JSON.
    'Content-Type': s.protobuf ? `${PROTOBUF};stream=watch` : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  s.record?.started(200);
  serving.closers.add(end);
  req.on('close', end);
  res.on('close', end);
}

/**
 * Event delivery for a watch whose objects come at their stored version: each is converted
 * through the webhook (the calls one after the other, so events keep their order) before `write`.
 */
function convertingInOrder(
  s: RequestScope,
  write: (ev: WatchEvent) => void,
  end: () => void,
): { deliver: (ev: WatchEvent) => void; sent: () => Promise<void> } {
  const { cluster, t } = s;
  let chain: Promise<void> = Promise.resolve();
  let failed = false;
  const deliver = (ev: WatchEvent) => {
    chain = chain
      .then(async () => {
        if (failed) return;
        const carriesObject =
          ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED';
        if (carriesObject && ev.object.apiVersion !== t.apiVersion) {
          try {
            ev = {
              type: ev.type,
              object: await cluster.crConverter.convert(t, ev.object, t.apiVersion),
            };
          } catch (err) {
            failed = true;
            const status = err instanceof StatusError ? err.status : undefined;
            // The ERROR event is the stream's last: it ends the watch once sent.
            if (status) return write({ type: 'ERROR', object: status as never });
            return end();
          }
        }
        write(ev);
      })
      .catch(end); // a write that throws ends the stream; the client watches again
  };
  /** Settles once every event handed over so far has been written. */
  return { deliver, sent: () => chain };
}
