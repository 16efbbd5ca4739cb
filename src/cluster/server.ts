/**
 * The fake cluster served over HTTPS the way kube-apiserver serves itself: the REST paths of
 * every resource, discovery, /version, OpenAPI, server-side Tables, chunked watch streams,
 * bearer-token authentication, a 3 MiB body limit, and Status bodies for every error. kubectl,
 * @kubernetes/client-node, client-go and operator binaries talk to it through a kubeconfig.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AuditLog, verbOf, type InFlight } from './audit';
import {
  injectHttpFault,
  retryAfterOf,
  watchUnderFault,
  type FaultEffect,
  type FaultInjector,
} from './faults';
import type { Cluster } from './cluster';
import { generateServingCerts } from './certs';
import type { ServingCerts } from './certs';
import {
  legacyWatchQuery,
  queryBool,
  sendInitialEventsOf,
  validateListOptions,
  watchTimeoutSeconds,
} from './listoptions';
import { serveAggregatedDiscovery, wantsAggregatedDiscovery } from './aggregateddiscovery';
import { SERVER_VERSION, apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery';
import {
  StatusError,
  newBadRequest,
  newInternal,
  newMethodNotSupported,
  newNotFoundPath,
  newRequestEntityTooLarge,
  newUnauthorized,
  newUnsupportedMediaType,
} from './errors';
import { renderKubeconfig } from './kubeconfig';
import { isPrettyPrint } from './negotiation';
import { validateWriteOptions } from './optionsvalidation';
import { openapiV2, openapiV3, openapiV3Index } from './openapi';
import {
  adoptRequestNamespace,
  checkKind,
  checkResourceVersionUnset,
  decodeDeleteOptions,
  decodeObject,
  decodePatch,
  decodeTyped,
  int64Param,
} from './decode';
import type { ResourceType } from './registry';
import { parseRequestTarget, resolveResource } from './requestinfo';
import type { ResourceRoute } from './requestinfo';
import { toTable } from './table';
import { WatchStream } from './watchstream';
import { deleteCode, deleteResponse } from './deleteresponse';
import { evictPod } from './eviction';
import { servePodLog } from './podlog';
import type { KubeObject, ListOptions, PatchType, WatchEvent } from './types';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Unsent bytes a watch stream may add to its initial events before it is closed (watchstream.ts). */
export const MAX_WATCH_BACKLOG_BYTES = 16 * 1024 * 1024;

export interface ServerOptions {
  cluster: Cluster;
  port?: number;
  host?: string;
  /** Defaults to a random token. It names the user `DEFAULT_USER`. */
  token?: string;
  /** More bearer tokens, each naming a user (as kube-apiserver's --token-auth-file): token → user. */
  users?: Record<string, string>;
  /** Where requests are recorded; defaults to a new bounded log. */
  audit?: AuditLog;
  /** Defaults to a freshly generated CA and serving certificate. */
  certs?: ServingCerts;
  /** Defaults to MAX_WATCH_BACKLOG_BYTES. */
  watchBacklogBytes?: number;
  /**
   * Ends every watch after at most this many seconds (`serve --watch-timeout`), so that clients'
   * re-watches happen in seconds rather than the 5–10 minutes client-go asks for.
   */
  maxWatchSeconds?: number;
  /**
   * kube-apiserver's `--min-request-timeout`: a watch without `timeoutSeconds` ends after a random
   * time between this and twice this (default 1800 s; 0: never).
   */
  minRequestTimeoutSeconds?: number;
  /** Faults to inject into resource requests (`serve --faults`). */
  faults?: FaultInjector;
  /** Sees every authenticated request before it is served (`serve --log-requests`). */
  onRequest?: (req: IncomingMessage) => void;
}

export interface ServerHandle {
  url: string;
  port: number;
  token: string;
  caPem: string;
  /** Every request served, with the user who made it. */
  audit: AuditLog;
  /** A kubeconfig for the default token, or for `user`'s token (see `addUser`). */
  kubeconfig(contextName?: string, user?: string): string;
  /** Gives `user` a bearer token of its own (a new random one, or `token`); returns it. */
  addUser(user: string, token?: string): string;
  close(): Promise<void>;
}

/** The user the server's default token names. */
export const DEFAULT_USER = 'reconcile-studio';

export async function startServer(opts: ServerOptions): Promise<ServerHandle> {
  const { cluster } = opts;
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? randomBytes(24).toString('base64url');
  const certs =
    opts.certs ??
    (await generateServingCerts(host === '127.0.0.1' || host === 'localhost' ? [] : [host]));
  // token → user, as kube-apiserver's token file; compared in constant time below.
  const users = new Map<string, string>([
    [token, DEFAULT_USER],
    ...Object.entries(opts.users ?? {}),
  ]);
  const audit = opts.audit ?? new AuditLog();
  const sockets = new Set<Socket>();
  const closers = new Set<() => void>();
  const backlogLimit = opts.watchBacklogBytes ?? MAX_WATCH_BACKLOG_BYTES;
  let address = '';

  const server = createServer(
    { key: certs.keyPem, cert: certs.certPem, keepAlive: true },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        const se =
          err instanceof StatusError
            ? err
            : newInternal(err instanceof Error ? err.message : String(err));
        if (!res.headersSent) sendStatus(res, se);
        else res.end();
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => {
    s.setNoDelay(true);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const user = authenticate(users, req.headers.authorization ?? '');
    if (user === undefined) {
      req.resume();
      return sendStatus(res, newUnauthorized());
    }
    const record = audit.begin({
      user,
      userAgent: req.headers['user-agent'] ?? '',
      method: req.method ?? 'GET',
      requestURI: req.url ?? '/',
    });
    inFlight.set(res, record);
    res.on('close', () => record.complete(res.statusCode));
    opts.onRequest?.(req);
    const method = req.method ?? 'GET';
    const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
    const { path, segments: segs, query: q } = parseRequestTarget(req.url ?? '/');
    const pretty = isPrettyPrint(q, req.headers['user-agent']);

    if (method === 'GET' && segs.length <= 2 && !['api', 'apis'].includes(segs[0] ?? '')) {
      const p = path.replace(/\/+$/, '');
      if (p === '/version') return sendJson(res, 200, SERVER_VERSION);
      if (['/healthz', '/livez', '/readyz'].includes(p)) return sendText(res, 200, 'ok');
      if (p === '/openapi/v2') return sendJson(res, 200, openapiV2(cluster.registry));
      if (p === '/openapi/v3') return sendJson(res, 200, openapiV3Index(cluster.registry));
      if (p === '') {
        return sendJson(res, 200, {
          paths: [
            '/api',
            '/api/v1',
            '/apis',
            ...cluster.registry
              .all()
              .filter((t) => t.info.group)
              .map((t) => `/apis/${t.apiVersion}`),
            '/healthz',
            '/openapi/v2',
            '/openapi/v3',
            '/version',
          ],
        });
      }
    }
    if (segs[0] === 'openapi' && segs[1] === 'v3' && method === 'GET') {
      const gv = segs[2] === 'api' ? segs[3] : `${segs[3]}/${segs[4]}`;
      const doc = gv ? openapiV3(cluster.registry, gv) : undefined;
      if (!doc) return sendStatus(res, newNotFoundPath());
      return sendJson(res, 200, doc);
    }

    if (segs.length === 1 && ['api', 'apis'].includes(segs[0]) && method === 'GET') {
      if (wantsAggregatedDiscovery(req.headers.accept))
        return serveAggregatedDiscovery(req, res, cluster.registry, segs[0] === 'api');
    }
    let apiVersion: string;
    let rest: string[];
    if (segs[0] === 'api') {
      if (segs.length === 1) return sendJson(res, 200, apiVersions(address));
      apiVersion = segs[1];
      rest = segs.slice(2);
    } else if (segs[0] === 'apis') {
      if (segs.length === 1) return sendJson(res, 200, apiGroupList(cluster.registry));
      if (segs.length === 2) {
        const g = apiGroup(cluster.registry, segs[1]);
        return g ? sendJson(res, 200, g) : sendStatus(res, newNotFoundPath());
      }
      apiVersion = `${segs[1]}/${segs[2]}`;
      rest = segs.slice(3);
    } else {
      return sendStatus(res, newNotFoundPath());
    }
    if (rest.length === 0) {
      const list = apiResourceList(cluster.registry, apiVersion);
      return list ? sendJson(res, 200, list) : sendStatus(res, newNotFoundPath());
    }
    const route = resolveResource(cluster.registry, apiVersion, rest);
    if (!route) return sendStatus(res, newNotFoundPath());
    if (route.watch) {
      if (method !== 'GET') throw newMethodNotSupported(route.t.gr, method.toLowerCase());
      const { name, ...collection } = route;
      return serveResource(
        req,
        res,
        collection,
        method,
        legacyWatchQuery(q, name),
        body,
        pretty,
        user,
      );
    }
    return serveResource(req, res, route, method, q, body, pretty, user);
  }

  async function serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    route: ResourceRoute,
    method: string,
    q: URLSearchParams,
    body: Buffer | undefined,
    pretty: boolean,
    user: string,
  ): Promise<void> {
    const { t, namespace, name, subresource } = route;
    const type = { apiVersion: t.apiVersion, kind: t.info.kind };
    const record = inFlight.get(res);
    record?.resolve(
      {
        apiVersion: t.apiVersion,
        resource: t.info.plural,
        subresource: subresource ?? '',
        namespace: namespace ?? '',
        name: name ?? '',
      },
      queryBool(q, 'watch') === true,
    );
    if (method !== 'GET' && method !== 'PATCH') validateWriteOptions(method, q);
    const verb = verbOf(method, name !== undefined, queryBool(q, 'watch') === true);
    const fault = opts.faults?.decide({
      verb,
      group: t.gr.group,
      resource: t.info.plural,
      subresource: subresource ?? '',
      namespace: namespace ?? '',
      name: name ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      user,
      resourceVersion: q.get('resourceVersion') ?? '',
    });
    if (fault) await injectHttpFault(fault, verb, res, record);
    const dryRun = q.getAll('dryRun').includes('All');
    const fieldManager = q.get('fieldManager') ?? userAgentManager(req.headers['user-agent']);
    const table = wantsTable(req.headers.accept);
    const metaOnly = wantsPartialMetadata(req.headers.accept);
    const warnings: string[] = [];
    const fv = q.get('fieldValidation');
    const fieldValidation = fv === 'Strict' || fv === 'Ignore' || fv === 'Warn' ? fv : undefined;
    // A write is answered only once it is durable (with `serve --state`: its log record fsynced),
    // as kube-apiserver answers once etcd has committed; a write that cannot be made so is a 500.
    // A read waits too, so no client sees a change that a crash could still take back.
    // (Synchronously when nothing is waiting for the disk: the common case costs nothing.)
    const whenDurable = (fn: () => void): void | Promise<void> =>
      dryRun || cluster.store.durable ? fn() : cluster.store.sync().then(fn);
    const setWarnings = () => {
      if (warnings.length)
        res.setHeader(
          'Warning',
          warnings.map((w) => `299 - ${JSON.stringify(w)}`),
        );
    };
    const sendRaw = (code: number, text: string) =>
      whenDurable(() => {
        setWarnings();
        if (pretty) return sendJson(res, code, JSON.parse(text), true);
        res.writeHead(code, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(text),
          'Cache-Control': 'no-cache, private',
        });
        res.end(text);
      });
    /** A written object: its stored JSON is already cached, so send that rather than serializing again. */
    const sendWritten = (code: number, out: KubeObject) => {
      const stored = dryRun
        ? undefined
        : cluster.peek(type, {
            ...(namespace !== undefined ? { namespace } : {}),
            name: out.metadata.name ?? '',
          });
      if (
        stored &&
        stored.metadata.resourceVersion === out.metadata.resourceVersion &&
        stored.apiVersion === out.apiVersion &&
        stored.kind === out.kind
      ) {
        return sendRaw(code, cluster.jsonOf(stored));
      }
      return send(code, out);
    };
    const send = (code: number, obj: unknown) =>
      whenDurable(() => {
        setWarnings();
        sendJson(res, code, obj, pretty);
      });
    // The pod subresources served by their own REST handlers (podlog.ts, eviction.ts).
    if (name !== undefined && (subresource === 'log' || subresource === 'eviction')) {
      if (namespace === undefined) throw newNotFoundPath();
      const key = { namespace, name };
      if (subresource === 'log' && method === 'GET')
        return servePodLog(cluster, req, res, key, q, closers, () => record?.started(200));
      if (subresource === 'eviction' && method === 'POST') {
        const eviction = decodeObject(body, req.headers['content-type']);
        return send(201, evictPod(cluster, key, eviction, q.getAll('dryRun')));
      }
      throw newMethodNotSupported(t.gr, method.toLowerCase());
    }
    if (name === undefined) {
      const listOpts: ListOptions = {
        ...(namespace !== undefined ? { namespace } : {}),
        ...(q.get('labelSelector') ? { labelSelector: q.get('labelSelector')! } : {}),
        ...(q.get('fieldSelector') ? { fieldSelector: q.get('fieldSelector')! } : {}),
        ...(q.get('limit') ? { limit: int64Param(q, 'limit') } : {}),
        ...(q.get('continue') ? { continue: q.get('continue')! } : {}),
        ...(q.get('resourceVersion') ? { resourceVersion: q.get('resourceVersion')! } : {}),
        ...(q.get('resourceVersionMatch')
          ? { resourceVersionMatch: q.get('resourceVersionMatch')! }
          : {}),
      };
      if (method === 'GET') {
        validateListOptions(q);
        if (queryBool(q, 'watch')) return serveWatch(req, res, t, listOpts, q, table, fault);
        if (metaOnly) {
          const list = cluster.list(type, listOpts);
          return send(200, {
            kind: 'PartialObjectMetadataList',
            apiVersion: metaOnly,
            metadata: list.metadata,
            items: list.items.map((o) => partial(o, metaOnly)),
          });
        }
        if (!table) return sendRaw(200, cluster.listJSON(type, listOpts));
        const list = cluster.list(type, listOpts);
        if (table)
          return send(
            200,
            toTable(t, list.items, cluster.clock.now(), {
              resourceVersion: list.metadata.resourceVersion,
              continue: list.metadata.continue,
              includeObject: q.get('includeObject') ?? undefined,
            }),
          );
        return send(200, list);
      }
      if (method === 'POST') {
        if (t.info.namespaced && namespace === undefined)
          throw newMethodNotSupported(t.gr, 'create');
        const obj = decodeObject(body, req.headers['content-type']);
        checkKind(obj, t);
        decodeTyped(t, obj, false);
        adoptRequestNamespace(obj, t, namespace);
        checkResourceVersionUnset(obj);
        const out = cluster.createAs(t, obj, {
          dryRun,
          fieldManager,
          warnings,
          owned: true,
          returnStored: true,
          ...(fieldValidation ? { fieldValidation } : {}),
        });
        record?.objectsOf(undefined, out);
        return sendWritten(201, out);
      }
      if (method === 'DELETE') {
        const dopts = decodeDeleteOptions(q, body);
        const out = cluster.deleteCollection(type, listOpts, dopts);
        return send(200, out);
      }
      throw newMethodNotSupported(t.gr, method.toLowerCase());
    }
    const key = { ...(namespace !== undefined ? { namespace } : {}), name };
    if (t.info.namespaced && namespace === undefined) throw newNotFoundPath();
    // The stored object is never mutated in place, so holding it is holding the "before".
    const before = method === 'GET' ? undefined : cluster.peek(type, key);
    switch (method) {
      case 'GET': {
        if (subresource === 'scale') return send(200, cluster.getScale(type, key));
        if (metaOnly) return send(200, partial(cluster.get(type, key), metaOnly));
        if (!table) return sendRaw(200, cluster.getJSON(type, key));
        const obj = cluster.get(type, key);
        if (table)
          return send(
            200,
            toTable(t, [obj], cluster.clock.now(), {
              resourceVersion: obj.metadata.resourceVersion,
              includeObject: q.get('includeObject') ?? undefined,
            }),
          );
        return send(200, obj);
      }
      case 'PUT': {
        const obj = decodeObject(body, req.headers['content-type']);
        if (subresource !== 'scale') {
          checkKind(obj, t);
          decodeTyped(t, obj, false);
        }
        if (obj.metadata.name && obj.metadata.name !== name) {
          throw newBadRequest(
            `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
          );
        }
        obj.metadata.name = name;
        adoptRequestNamespace(obj, t, namespace);
        if (subresource === 'finalize') {
          const finalizers = (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
          const cur = cluster.get(type, key);
          for (const f of (cur.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [])
            if (!finalizers.includes(f)) cluster.finalizeNamespace(name, f);
          return send(200, cluster.get(type, key));
        }
        const out = cluster.updateAs(t, obj, {
          dryRun,
          fieldManager,
          warnings,
          ...(fieldValidation ? { fieldValidation } : {}),
          ...(subresource ? { subresource: subresource as 'status' | 'scale' } : {}),
        });
        record?.objectsOf(before, out);
        return send(200, out);
      }
      case 'PATCH': {
        const ct = (req.headers['content-type'] ?? '').split(';')[0].trim();
        const patchType = PATCH_TYPES[ct];
        if (!patchType) throw newUnsupportedMediaType(ct);
        validateWriteOptions(method, q, patchType);
        const patch = decodePatch(body, patchType);
        const existed = before !== undefined;
        const out = cluster.patchAs(t, key, patch, patchType, {
          dryRun,
          fieldManager: q.get('fieldManager') ?? (patchType === 'apply' ? '' : fieldManager),
          force: queryBool(q, 'force') === true,
          warnings,
          ...(fieldValidation ? { fieldValidation } : {}),
          ...(subresource ? { subresource: subresource as 'status' | 'scale' } : {}),
        });
        record?.objectsOf(before, out);
        return send(!existed && !dryRun ? 201 : 200, out);
      }
      case 'DELETE': {
        const dopts = decodeDeleteOptions(q, body);
        const out = cluster.deleteAs(t, key, dopts);
        record?.objectsOf(before, out);
        return send(deleteCode(out, dopts), deleteResponse(t, out));
      }
      default:
        throw newMethodNotSupported(t.gr, method.toLowerCase());
    }
  }

  function serveWatch(
    req: IncomingMessage,
    res: ServerResponse,
    t: ResourceType,
    listOpts: ListOptions,
    q: URLSearchParams,
    table: boolean,
    fault?: FaultEffect,
  ): void {
    const includeObject = q.get('includeObject') ?? undefined;
    const metaOnly = wantsPartialMetadata(req.headers.accept);
    const type = { apiVersion: t.apiVersion, kind: t.info.kind };
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      stream.close();
      w?.stop();
      closers.delete(end);
      res.end();
    };
    const write = (ev: WatchEvent) => {
      if (ended) return;
      let object: unknown = ev.object;
      if (metaOnly && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED'))
        object = partial(ev.object, metaOnly);
      else if (table && (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED')) {
        object = toTable(t, [ev.object], cluster.clock.now(), {
          resourceVersion: ev.object.metadata.resourceVersion,
          includeObject: includeObject ?? 'Object',
        });
      }
      stream.send(JSON.stringify({ type: ev.type, object }) + '\n', ev.type === 'ERROR');
    };
    const stream = new WatchStream({
      res,
      store: cluster.store,
      backlogLimit,
      resource: t.info.plural,
      end,
    });
    const timeout = watchTimeoutSeconds(q, {
      max: opts.maxWatchSeconds,
      minRequestTimeout: opts.minRequestTimeoutSeconds,
    });
    const sendInitialEvents = sendInitialEventsOf(q);
    const w: { stop(): void } = watchUnderFault(fault, cluster.clock, write, end, (deliver) =>
      cluster.watch(
        type,
        {
          ...listOpts,
          ...(queryBool(q, 'allowWatchBookmarks') ? { allowWatchBookmarks: true } : {}),
          ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
          ...(timeout ? { timeoutSeconds: timeout } : {}),
        },
        deliver,
        end,
      ),
    );
    // Events are delivered from a microtask queued by watch(): this one runs after the first batch.
    queueMicrotask(() => stream.initialSent());
    // Headers go out once the watch is accepted, so a bad request still gets its own status code;
    // events arrive from a microtask, after this.
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    inFlight.get(res)?.started(200);
    closers.add(end);
    req.on('close', end);
    res.on('close', end);
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolveListen());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  address = `${hostPart}:${port}`;
  const url = `https://${hostPart}:${port}`;
  const tokenOf = (user: string) => [...users].find(([, u]) => u === user)?.[0];
  return {
    url,
    port,
    token,
    caPem: certs.caPem,
    audit,
    kubeconfig: (contextName?: string, user?: string) => {
      const t = user === undefined ? token : tokenOf(user);
      if (t === undefined) throw new Error(`no token for user ${user}`);
      return renderKubeconfig({
        server: url,
        caPem: certs.caPem,
        token: t,
        ...(contextName ? { contextName } : {}),
      });
    },
    addUser: (user: string, given?: string) => {
      const t = given ?? randomBytes(24).toString('base64url');
      users.set(t, user);
      return t;
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const c of [...closers]) c();
        server.close(() => resolveClose());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** The audit record of each request being served; sendStatus adds the error to it. */
const inFlight = new WeakMap<ServerResponse, InFlight>();

/** The user a `Bearer` token names, comparing every known token in constant time. */
function authenticate(users: Map<string, string>, authorization: string): string | undefined {
  const given = Buffer.from(authorization);
  let found: string | undefined;
  for (const [token, user] of users) {
    const expected = Buffer.from(`Bearer ${token}`);
    if (given.length === expected.length && timingSafeEqual(given, expected)) found = user;
  }
  return found;
}

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

function wantsTable(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept
    .split(',')
    .some((a) => /as=Table/.test(a) && /g=meta\.k8s\.io/.test(a) && /v=v1(;|$|\s)/.test(a + ';'));
}

/** The meta.k8s.io version of a PartialObjectMetadata request (metadata-only clients), if any. */
function wantsPartialMetadata(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  for (const a of accept.split(',')) {
    if (!/as=PartialObjectMetadata(List)?(;|$)/.test(a) || !/g=meta\.k8s\.io/.test(a)) continue;
    const v = /v=(v1beta1|v1)(;|$)/.exec(a);
    if (v) return `meta.k8s.io/${v[1]}`;
  }
  return undefined;
}

function partial(o: KubeObject, apiVersion: string): object {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: o.metadata };
}

function userAgentManager(ua: string | undefined): string {
  if (!ua) return 'unknown';
  const first = ua.split('/')[0].trim();
  return first.slice(0, 128) || 'unknown';
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(newRequestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        failed = true;
        reject(newRequestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolveBody(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, code: number, obj: unknown, pretty = false): void {
  const text = pretty ? JSON.stringify(obj, null, 2) : JSON.stringify(obj);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  inFlight.get(res)?.fail(err.status);
  // responsewriters.ErrorNegotiated: a Status asking for a delay says so in Retry-After too.
  const retryAfter = retryAfterOf(err);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  sendJson(res, err.code, err.status);
}
