/**
 * The recording proxy: an HTTPS server on loopback, with a CA and bearer tokens of its own, that
 * forwards every request to the user's cluster (upstream.ts) and records each one in an AuditLog
 * exactly as the embedded cluster records its own (endpoints/audit.ts): who sent it (the user
 * the proxy token names, its user agent), the verb and resource its path names (RequestInfo, as
 * kube-apiserver reads it), the code and Status of the answer, when it started and ended, and for
 * writes the object before (lastseen.ts) and after. So the Reconcile Debugger, the Work Queue,
 * findings and faults work the same on a real cluster as on the embedded one.
 *
 * Bodies pass through untouched and as they come — a watch's chunks are written as they arrive —
 * and are decoded for the record only after the answer is out (JSON, or protobuf through the
 * generated API): a write's answer at once, a read's (gets, lists, watch events) only when a
 * write asks lastseen.ts for its `before`. Fault rules (faults.ts) are applied here, before
 * forwarding: a request a rule fails is answered with the apiserver's Status for it and never
 * reaches the cluster. Upgraded connections (exec, attach, port-forward) are refused: they are
 * out of the proxy's scope.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type {
  ClientRequest,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { AuditLog, verbOf, type AuditVerb, type InFlight } from '../cluster/endpoints/audit';
import { requestInfoOf, type RequestInfo } from '../cluster/endpoints/requestinfo';
import { RequestAuthenticator } from '../cluster/auth/authentication';
import { generateServingCerts, type ServingCerts } from '../cluster/auth/certs';
import { renderKubeconfig } from '../cluster/auth/kubeconfig';
import {
  StatusError,
  newInternal,
  newServiceUnavailable,
  newUnauthorized,
} from '../cluster/apimachinery/errors';
import { sendNegotiated } from '../cluster/endpoints/handlers/response';
import { encodeProtobufWatchEvent, PROTOBUF } from '../cluster/api/protobuf';
import { injectHttpFault, retryAfterOf, type FaultEffect, FaultInjector } from '../cluster/faults';
import type { KubeObject } from '../cluster/apimachinery/types';
import {
  decodeBody,
  decodeWatchFrame,
  isDecodable,
  WatchStreamSplitter,
  type DecodedWatchEvent,
} from './bodies';
import { LastSeen, type Seen } from './lastseen';
import type { Upstream } from './upstream';

/** The user the proxy's default token names. */
export const PROXY_USER = 'reconcile-studio';
/** Answers bigger than this are forwarded whole but not decoded for the record. */
export const MAX_RECORDED_BYTES = 16 * 1024 * 1024;

export interface ProxyOptions {
  upstream: Upstream;
  host?: string;
  port?: number;
  /** Defaults to a random token, naming `PROXY_USER`. */
  token?: string;
  /** More tokens, each naming a user: token → user. */
  users?: Record<string, string>;
  audit?: AuditLog;
  certs?: ServingCerts;
  faults?: FaultInjector;
  /** How many objects the record of what went by keeps (lastseen.ts). */
  lastSeenLimit?: number;
}

/** A watch event that went through, with the request (audit ID) whose stream carried it. */
export interface ProxiedWatchEvent extends DecodedWatchEvent {
  auditID: string;
  user: string;
}

export interface ProxyHandle {
  url: string;
  port: number;
  token: string;
  caPem: string;
  /** The upstream kubeconfig context the proxy forwards to. */
  context: string;
  audit: AuditLog;
  /** The fault rules decided before forwarding (the debugger's "Fail the next call with…" adds to them). */
  faults: FaultInjector;
  /** A kubeconfig for the proxy: the default token, or `user`'s (see `addUser`). */
  kubeconfig(contextName?: string, user?: string): string;
  addUser(user: string, token?: string): string;
  /** Calls `listener` with every watch event forwarded from now on; returns the unsubscribe. */
  onWatchEvent(listener: (ev: ProxiedWatchEvent) => void): () => void;
  close(): Promise<void>;
}

const AUDIT_VERBS = new Set<string>([
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
]);
/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Kinds whose objects are not whole objects: not what a write's `before` should be. */
const PARTIAL_KINDS = new Set(['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList']);

/**
 * The AuditVerb of a request: RequestInfo's verb for a resource request; a non-resource request
 * (and the `proxy` verb, which AuditVerb has no name for) as the embedded cluster names them.
 */
function auditVerbOf(info: RequestInfo, method: string): AuditVerb {
  return info.isResourceRequest && AUDIT_VERBS.has(info.verb)
    ? (info.verb as AuditVerb)
    : verbOf(method, true, false);
}

function forwardedHeaders(h: IncomingHttpHeaders, body: Buffer | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || HOP_BY_HOP.has(k) || k === 'host' || k === 'authorization') continue;
    out[k] = v;
  }
  if (body !== undefined) out['content-length'] = body.length;
  return out;
}

function answerHeaders(h: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function objectName(body: Buffer | undefined, contentType: string | undefined): string {
  const o = body ? decodeBody(body, contentType) : undefined;
  const name = (o?.metadata as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

export async function startProxy(opts: ProxyOptions): Promise<ProxyHandle> {
  const { upstream } = opts;
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const certs = opts.certs ?? (await generateServingCerts());
  const users = new Map<string, string>([[token, PROXY_USER], ...Object.entries(opts.users ?? {})]);
  // The token file's authenticator (no service accounts: the proxy issues none); `users` is read
  // at each request, so tokens added while it runs count.
  const authenticator = new RequestAuthenticator(users);
  /** The bytes a write's objects came in: what the audit log counts them as (no re-encoding). */
  const sizes = new WeakMap<object, number>();
  const audit =
    opts.audit ?? new AuditLog({ sizeOf: (o) => sizes.get(o) ?? JSON.stringify(o).length });
  const faults = opts.faults ?? new FaultInjector([]);
  const lastSeen = new LastSeen(opts.lastSeenLimit);
  const watchListeners = new Set<(ev: ProxiedWatchEvent) => void>();
  const sockets = new Set<Socket>();
  /** Answers sent whose bodies are still being decoded for the record. */
  const decoding = new WeakSet<ServerResponse>();

  function sendStatus(res: ServerResponse, record: InFlight | undefined, err: StatusError): void {
    record?.fail(err.status);
    const retryAfter = retryAfterOf(err);
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    sendNegotiated(res, err.code, err.status);
  }

  const server = createServer(
    { key: certs.keyPem, cert: certs.certPem, keepAlive: true },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        const se =
          err instanceof StatusError
            ? err
            : newInternal(err instanceof Error ? err.message : String(err));
        if (!res.headersSent) sendStatus(res, undefined, se);
        else res.destroy();
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => s.setNoDelay(true));
  server.on('upgrade', (_req: IncomingMessage, socket: Socket) => {
    const body = JSON.stringify(
      newServiceUnavailable(
        'the Reconcile Studio proxy does not forward upgraded connections (exec, attach, port-forward)',
      ).status,
    );
    socket.end(
      `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const user = authenticator.authenticateRequest(req.headers.authorization ?? '')?.username;
    if (user === undefined) {
      // As kube-apiserver: an unauthenticated request gets an audit ID, and is not recorded.
      res.setHeader('Audit-Id', randomUUID());
      req.resume();
      return sendStatus(res, undefined, newUnauthorized());
    }
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const userAgent = req.headers['user-agent'] ?? '';
    const record = audit.begin({ user, userAgent, method, requestURI: target });
    // The call's audit ID is the cluster's too: the proxy sends it as Audit-ID, which
    // kube-apiserver adopts (a client's own Audit-ID is passed on and kept).
    const clientAuditID = req.headers['audit-id'];
    if (typeof clientAuditID === 'string' && clientAuditID) record.auditID = clientAuditID;
    res.on('close', () => {
      // An answer still being decoded for the record completes it once that is done. A client
      // that went away before the cluster answered leaves code 0: no answer reached it.
      if (!decoding.has(res)) record.complete(res.headersSent ? res.statusCode : 0);
    });
    let info: RequestInfo;
    try {
      info = requestInfoOf(method, target);
    } catch {
      // A path the apiserver refuses (a bad escape): it says so itself.
      info = requestInfoOf(method, '/');
    }
    const verb = auditVerbOf(info, method);
    const apiVersion = info.isResourceRequest
      ? info.apiGroup
        ? `${info.apiGroup}/${info.apiVersion}`
        : info.apiVersion
      : '';
    record.routed({
      verb,
      apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      namespace: info.namespace,
      name: info.name,
    });
    const body = method === 'GET' || method === 'HEAD' ? undefined : await readAll(req);
    let fault: FaultEffect | undefined;
    if (faults.size && info.isResourceRequest) {
      const q = new URL(target, 'https://proxy').searchParams;
      fault = faults.decide({
        verb,
        group: info.apiGroup,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        userAgent,
        user,
        resourceVersion: q.get('resourceVersion') ?? '',
        ...(verb === 'create' ? { objectName: objectName(body, req.headers['content-type']) } : {}),
      });
      if (fault) {
        try {
          await injectHttpFault(fault, verb, res, record);
        } catch (err) {
          if (err instanceof StatusError) return sendStatus(res, record, err);
          throw err;
        }
        if (verb === 'watch' && fault.gone) return goneWatch(req, res, fault.gone);
      }
    }
    await forward(req, res, record, info, verb, body, user, fault);
  }

  /** A watch a `gone` fault answers: its 410 as the only event, as the watch cache does. */
  function goneWatch(req: IncomingMessage, res: ServerResponse, gone: StatusError): void {
    const protobuf = (req.headers.accept ?? '').trim().startsWith(PROTOBUF);
    const status = gone.status as unknown as Record<string, unknown>;
    res.writeHead(200, {
      'Content-Type': protobuf ? `${PROTOBUF};stream=watch` : 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    res.end(
      protobuf
        ? encodeProtobufWatchEvent('ERROR', status)
        : `${JSON.stringify({ type: 'ERROR', object: status })}\n`,
    );
  }

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    record: InFlight,
    info: RequestInfo,
    verb: AuditVerb,
    body: Buffer | undefined,
    user: string,
    fault: FaultEffect | undefined,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    let up: ClientRequest;
    try {
      const headers = forwardedHeaders(req.headers, body);
      headers['audit-id'] = record.auditID;
      const opened = upstream.request(method, req.url ?? '/', headers);
      up = opened instanceof Promise ? await opened : opened;
    } catch (err) {
      // Credentials that cannot be had (an exec plugin that fails): the client sees why.
      return sendStatus(res, record, credentialsError(err));
    }
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    up.on('error', (err) => {
      if (!res.headersSent)
        sendStatus(
          res,
          record,
          newServiceUnavailable(`error trying to reach the cluster: ${err.message}`),
        );
      else res.destroy();
    });
    let before: Seen | undefined;
    up.on('response', (answer) => {
      const code = answer.statusCode ?? 502;
      const id = answer.headers['audit-id'];
      // The cluster's own audit ID: the record names the same request as the cluster's log.
      if (typeof id === 'string' && id) record.auditID = id;
      res.writeHead(code, answerHeaders(answer.headers));
      const contentType = answer.headers['content-type'];
      if (verb === 'watch' && code === 200) {
        record.started(code);
        const splitter = new WatchStreamSplitter(contentType, (frame) =>
          sawEvent(info, record, user, frame, splitter.protobuf),
        );
        const lag = fault?.cacheLagMs ?? 0;
        let first = true;
        answer.on('data', (c: Buffer) => {
          if (lag > 0) setTimeout(() => res.writableEnded || res.write(c), lag);
          else res.write(c);
          splitter.push(c);
          // closeWatch: the stream ends once its first batch of events is out.
          if (first && fault?.closeWatch) setImmediate(() => answer.destroy());
          first = false;
        });
        answer.on('close', () => {
          if (lag > 0) setTimeout(() => res.end(), lag);
          else res.end();
        });
        return;
      }
      // Only what can be decoded is kept for the record (not logs, not YAML).
      const keep = isDecodable(contentType);
      const chunks: Buffer[] = [];
      let size = 0;
      answer.on('data', (c: Buffer) => {
        res.write(c);
        size += c.length;
        if (keep && size <= MAX_RECORDED_BYTES) chunks.push(c);
      });
      answer.on('end', () => {
        res.end();
        if (!keep || size > MAX_RECORDED_BYTES || size === 0) return;
        const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
        // A read's answer tells the record nothing but what went by: kept undecoded until a
        // write asks for its `before` (lastseen.ts).
        if (code < 300 && (verb === 'get' || verb === 'list'))
          return sawLater(info, verb, body, contentType);
        // Decoded once the answer's last bytes are out, not before: the client is not kept waiting.
        decoding.add(res);
        setImmediate(() => {
          try {
            recordAnswer(record, info, verb, code, decodeBody(body, contentType), size, before);
          } finally {
            decoding.delete(res);
            if (res.closed) record.complete(res.statusCode);
          }
        });
      });
      answer.on('error', () => res.destroy());
    });
    up.end(body);
    // A write's `before`: the object as last seen before the write went out, looked up while the
    // cluster works on it — not after its answer, when a watch event of this very write may
    // already have gone by.
    if (verb === 'update' || verb === 'patch' || verb === 'delete')
      before = lastSeen.lookup({
        group: info.apiGroup,
        resource: info.resource,
        namespace: info.namespace,
        name: info.name,
      });
  }

  function credentialsError(err: unknown): StatusError {
    const msg = err instanceof Error ? err.message : String(err);
    return newUnauthorized(`getting credentials for the cluster: ${msg}`);
  }

  /** What an answer tells the record: an error's Status, a write's objects, what went by. */
  function recordAnswer(
    record: InFlight,
    info: RequestInfo,
    verb: AuditVerb,
    code: number,
    obj: Record<string, unknown> | undefined,
    bytes: number,
    before: Seen | undefined,
  ): void {
    if (!obj) return;
    const g = info.apiGroup;
    const r = info.resource;
    if (code >= 400 || obj.kind === 'Status') {
      if (code >= 400) record.fail(obj as { reason?: string; message?: string });
      if (verb === 'delete' && code < 300)
        lastSeen.forget(g, r, { metadata: { name: info.name, namespace: info.namespace } });
      return;
    }
    if (PARTIAL_KINDS.has(String(obj.kind)) || !info.isResourceRequest) return;
    const whole = info.subresource === '' || info.subresource === 'status';
    switch (verb) {
      case 'create':
      case 'update':
      case 'patch':
      case 'delete': {
        // The audit log counts the objects it holds by the bytes they came in (no re-encoding).
        if (before?.bytes) sizes.set(before.object, before.bytes);
        sizes.set(obj, bytes);
        record.objectsOf(before?.object, whole ? (obj as unknown as KubeObject) : undefined);
        if (!whole) return;
        const meta = obj.metadata as { deletionTimestamp?: unknown } | undefined;
        if (verb === 'delete' && !meta?.deletionTimestamp) lastSeen.forget(g, r, obj);
        else lastSeen.saw(g, r, obj, bytes);
        return;
      }
      default:
        return;
    }
  }

  /** A read's answer: its objects went by, applied to `lastSeen` when it is next asked. */
  function sawLater(
    info: RequestInfo,
    verb: 'get' | 'list',
    body: Buffer,
    contentType: string | undefined,
  ): void {
    if (!info.isResourceRequest) return;
    if (verb === 'get' && info.subresource !== '' && info.subresource !== 'status') return;
    const g = info.apiGroup;
    const r = info.resource;
    lastSeen.later(body.length, () => {
      const obj = decodeBody(body, contentType);
      if (!obj || obj.kind === 'Status' || PARTIAL_KINDS.has(String(obj.kind))) return;
      if (verb === 'get') lastSeen.saw(g, r, obj, body.length);
      else if (Array.isArray(obj.items)) {
        // Each item's share of the list's bytes, as the audit log's measure of it.
        const each = Math.ceil(body.length / Math.max(1, obj.items.length));
        for (const it of obj.items as unknown[]) lastSeen.saw(g, r, it, each);
      }
    });
  }

  /** What a watch event tells `lastSeen`. */
  function applyEvent(info: RequestInfo, ev: DecodedWatchEvent, bytes: number): void {
    if (PARTIAL_KINDS.has(String(ev.object.kind))) return;
    if (ev.type === 'ADDED' || ev.type === 'MODIFIED')
      lastSeen.saw(info.apiGroup, info.resource, ev.object, bytes);
    else if (ev.type === 'DELETED') lastSeen.forget(info.apiGroup, info.resource, ev.object);
  }

  /**
   * A watch event went by: decoded now when someone listens to the proxy's watch events, else
   * kept undecoded, as a read's answer is, until `lastSeen` is asked.
   */
  function sawEvent(
    info: RequestInfo,
    record: InFlight,
    user: string,
    frame: Buffer,
    protobuf: boolean,
  ): void {
    if (watchListeners.size === 0) {
      lastSeen.later(frame.length, () => {
        const ev = decodeWatchFrame(frame, protobuf);
        if (ev) applyEvent(info, ev, frame.length);
      });
      return;
    }
    const ev = decodeWatchFrame(frame, protobuf);
    if (!ev) return;
    applyEvent(info, ev, frame.length);
    for (const l of watchListeners) {
      try {
        l({ ...ev, auditID: record.auditID, user });
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const url = `https://${hostPart}:${port}`;
  const tokenOf = (u: string) => [...users].find(([, name]) => name === u)?.[0];
  return {
    url,
    port,
    token,
    caPem: certs.caPem,
    context: upstream.context,
    audit,
    faults,
    kubeconfig: (contextName?: string, u?: string) => {
      const t = u === undefined ? token : tokenOf(u);
      if (t === undefined) throw new Error(`no token for user ${u}`);
      return renderKubeconfig({
        server: url,
        caPem: certs.caPem,
        token: t,
        contextName: contextName ?? `reconcile-studio-proxy-${upstream.context}`,
        namespace: upstream.namespace,
      });
    },
    addUser: (u: string, given?: string) => {
      const t = given ?? randomBytes(24).toString('base64url');
      users.set(t, u);
      return t;
    },
    onWatchEvent: (listener) => {
      watchListeners.add(listener);
      return () => watchListeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        upstream.close();
      }),
  };
}
