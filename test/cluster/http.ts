/**
 * The fake cluster served over HTTPS in-process, and the two requests its HTTP-level tests make:
 * a GET and a watch whose events are collected.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import type { CreateClusterOptions } from '../../src/cluster/builtins';
import { startServer } from '../../src/cluster/endpoints/server';
import type { ServerHandle, ServerOptions } from '../../src/cluster/endpoints/server';

export interface Served {
  cluster: Cluster;
  server: ServerHandle;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  /** Any request; a body that is not a string (or Chunked) is sent as JSON. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  watch(
    path: string,
    until: (events: WatchedEvent[]) => boolean,
    onOpen?: () => void,
  ): Promise<WatchedEvent[]>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as it came (a protobuf answer is not text). */
  bytes: Buffer;
}

export interface WatchedEvent {
  type: string;
  object: Record<string, unknown>;
}

export const meta = (o: Record<string, unknown>) => o.metadata as Record<string, unknown>;

/** The texts of an answer's `Warning: 299 - "…"` headers. */
export function warningsOf(headers: IncomingHttpHeaders): string[] {
  const w = headers.warning;
  return (Array.isArray(w) ? w : w ? [w] : []).map((x) => x.replace(/^299 - "(.*)"$/, '$1'));
}

/** A request body written in these pieces, without a Content-Length (chunked encoding). */
export class Chunked {
  constructor(readonly pieces: Buffer[]) {}
}

/** A cluster without controllers, served on a free loopback port. */
export async function served(
  opts: Omit<ServerOptions, 'cluster'> = {},
  clusterOpts: CreateClusterOptions = {},
): Promise<Served> {
  const cluster = createCluster({ controllers: false, ...clusterOpts });
  const server = await startServer({ cluster, ...opts });
  const auth = { authorization: `Bearer ${server.token}` };

  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const chunked = body instanceof Chunked ? body : undefined;
      const text =
        body === undefined || chunked
          ? undefined
          : typeof body === 'string' || Buffer.isBuffer(body)
            ? body
            : JSON.stringify(body);
      const req = request(
        `${server.url}${path}`,
        {
          method,
          ca: server.caPem,
          headers: {
            ...auth,
            ...(text !== undefined || chunked ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: bytes.toString(),
              bytes,
            });
          });
        },
      );
      req.on('error', reject);
      for (const piece of chunked?.pieces ?? []) req.write(piece);
      req.end(text);
    });
  const get = (path: string, headers: Record<string, string> = {}) =>
    call('GET', path, undefined, headers);

  /** Collects a watch's events until `until` says stop (or the server ends it). */
  const watch = (
    path: string,
    until: (events: WatchedEvent[]) => boolean,
    onOpen?: () => void,
  ): Promise<WatchedEvent[]> =>
    new Promise((resolve, reject) => {
      const events: WatchedEvent[] = [];
      const req = request(`${server.url}${path}`, { ca: server.caPem, headers: auth }, (res) => {
        assert.equal(res.statusCode, 200);
        let buf = '';
        res.on('data', (d: Buffer) => {
          buf += d.toString();
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buf.slice(0, i)) as WatchedEvent);
            buf = buf.slice(i + 1);
          }
          if (until(events)) {
            req.destroy();
            resolve(events);
          }
        });
        res.on('end', () => resolve(events));
        onOpen?.();
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });

  return {
    cluster,
    server,
    get,
    call,
    watch,
    close: async () => {
      await server.close();
      cluster.close();
    },
  };
}
