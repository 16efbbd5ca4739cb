/**
 * The fake cluster served over HTTPS the way kube-apiserver serves itself: the REST paths of
 * every resource, discovery, /version, OpenAPI, server-side Tables, chunked watch streams,
 * bearer-token authentication, a 3 MiB body limit, and Status bodies for every error. kubectl,
 * @kubernetes/client-node, client-go and operator binaries talk to it through a kubeconfig.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AuditLog, verbOf, type InFlight } from './audit';
import { RequestAuthenticator, type UserInfo } from '../auth/authentication';
import { ServiceAccountTokens } from '../auth/serviceaccounttoken';
import {
  JWKS_PATH,
  METADATA_MAX_AGE_SECONDS,
  OPENID_CONFIG_PATH,
  openIDConfiguration,
  openIDKeyset,
} from '../auth/oidcdiscovery';
import { injectHttpFault, retryAfterOf, type FaultInjector } from '../faults';
import type { Cluster } from '../cluster';
import { generateServingCerts } from '../auth/certs';
import type { ServingCerts } from '../auth/certs';
import { legacyWatchQuery, queryBool, validateListOptions } from '../apimachinery/listoptions';
import { serveAggregatedDiscovery, wantsAggregatedDiscovery } from './aggregateddiscovery';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, serverVersion } from './discovery';
import {
  StatusError,
  newInternal,
  newMethodNotAllowedPath,
  newMethodNotSupported,
  newNotFoundPath,
  newRouteNotAcceptable,
  newRequestEntityTooLarge,
  newUnauthorized,
} from '../apimachinery/errors';
import { renderKubeconfig } from '../auth/kubeconfig';
import { LIST_ROUTE_PRODUCES, ROUTE_PRODUCES, isPrettyPrint, routeAccepts } from './negotiation';
import { validateWriteOptions } from '../apimachinery/optionsvalidation';
import { openapiV3Index, serveOpenapiV3 } from './openapi';
import { serveOpenapiV2 } from './openapiv2handler';
import { parseRequestTarget, resolveResource } from './requestinfo';
import type { ResourceRoute } from './requestinfo';
import { adoptRequestNamespace, decodeObject } from './decode';
import { createResource } from './handlers/create';
import { deleteCollection, deleteResource } from './handlers/delete';
import { getResource } from './handlers/get';
import { listOptionsOf, listResource } from './handlers/list';
import { patchResource } from './handlers/patch';
import { send, sendJson, sendNegotiated, writeWarnings } from './handlers/response';
import { requestFieldManager, requestScope, requestWarnings } from './handlers/scope';
import { updateResource } from './handlers/update';
import { watchResource, type WatchServing } from './handlers/watch';
import { evictPod } from '../registry/eviction';
import { bindPod } from '../registry/podbinding';
import { ensureKubernetesService } from '../controllers/kubernetesservice';
import { answerReview, resolveReview } from '../auth/reviews';
import { servePodLog } from '../registry/podlog';
import { createToken } from '../registry/tokenrequest';

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
  /**
   * The issuer of service account tokens (`serviceaccounts/NAME/token`): the server's URL, its
   * audiences the apiserver's, its key generated when the server started.
   */
  serviceAccountTokens: ServiceAccountTokens;
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
  // Until the server listens, its URL (the tokens' issuer) is unknown: no request comes before.
  let authenticator = new RequestAuthenticator(users);
  // Writes' objects are sized by their cached JSON (a write's "before" and "after" are stored objects).
  const audit = opts.audit ?? new AuditLog({ sizeOf: (o) => cluster.jsonLength(o) });
  const sockets = new Set<Socket>();
  const closers = new Set<() => void>();
  const watchServing: WatchServing = {
    backlogLimit: opts.watchBacklogBytes ?? MAX_WATCH_BACKLOG_BYTES,
    maxWatchSeconds: opts.maxWatchSeconds,
    minRequestTimeoutSeconds: opts.minRequestTimeoutSeconds,
    closers,
  };
  let address = '';

  const server = createServer(
    { key: certs.keyPem, cert: certs.certPem, keepAlive: true },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        const se =
          err instanceof StatusError
            ? err
            : newInternal(err instanceof Error ? err.message : String(err));
        if (!res.headersSent) {
          writeWarnings(res, requestWarnings.get(res));
          sendStatus(res, se);
        } else res.end();
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
    const user = authenticator.authenticateRequest(req.headers.authorization ?? '');
    if (user === undefined) {
      // WithAuditInit is outside authentication: an unauthenticated request has an audit ID too.
      res.setHeader('Audit-Id', randomUUID());
      req.resume();
      return sendStatus(res, newUnauthorized());
    }
    const record = audit.begin({
      user: user.username,
      userAgent: req.headers['user-agent'] ?? '',
      method: req.method ?? 'GET',
      requestURI: req.url ?? '/',
    });
    // kube-apiserver's WithAuditInit names every request's audit ID in its response.
    res.setHeader('Audit-Id', record.auditID);
    inFlight.set(res, record);
    res.on('close', () => record.complete(res.statusCode));
    opts.onRequest?.(req);
    const method = req.method ?? 'GET';
    const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
    const { path, segments: segs, query: q } = parseRequestTarget(req.url ?? '/');
    const pretty = isPrettyPrint(q, req.headers['user-agent']);

    // Service account issuer discovery: GET only, cacheable for an hour.
    const discovery = path.replace(/\/+$/, '');
    if (discovery === OPENID_CONFIG_PATH || discovery === JWKS_PATH) {
      if (method !== 'GET') return sendStatus(res, newMethodNotAllowedPath());
      const [body, type] =
        discovery === JWKS_PATH
          ? [openIDKeyset(tokens), 'application/jwk-set+json']
          : [openIDConfiguration(tokens), 'application/json'];
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': `public, max-age=${METADATA_MAX_AGE_SECONDS}`,
      });
      res.end(body);
      return;
    }
    if (method === 'GET' && segs.length <= 2 && !['api', 'apis'].includes(segs[0] ?? '')) {
      const p = path.replace(/\/+$/, '');
      if (p === '/version') return sendJson(res, 200, serverVersion());
      if (['/healthz', '/livez', '/readyz'].includes(p)) return sendText(res, 200, 'ok');
      if (p === '/openapi/v2') return serveOpenapiV2(req, res, cluster.registry);
      // kube-openapi's handler3 writes the index without a Content-Type: Go's sniffing names it.
      if (p === '/openapi/v3')
        return sendText(res, 200, JSON.stringify(openapiV3Index(cluster.registry)));
      if (p === '') {
        return sendJson(res, 200, {
          paths: [
            OPENID_CONFIG_PATH,
            '/api',
            '/api/v1',
            '/apis',
            ...new Set(
              cluster.registry
                .all()
                .filter((t) => t.info.group)
                .map((t) => `/apis/${t.apiVersion}`),
            ),
            '/healthz',
            '/openapi/v2',
            '/openapi/v3',
            JWKS_PATH,
            '/version',
          ],
        });
      }
    }
    if (segs[0] === 'openapi' && segs[1] === 'v3' && segs.length > 2 && method === 'GET') {
      if (!serveOpenapiV3(res, cluster.registry, segs.slice(2).join('/'), q.get('hash')))
        sendStatus(res, newNotFoundPath());
      return;
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
      const g = apiGroup(cluster.registry, segs[1]);
      // A group nothing serves has no web service: the mux's NotFoundHandler answers.
      if (!g) return sendPageNotFound(res);
      if (segs.length === 2) return sendJson(res, 200, g);
      apiVersion = `${segs[1]}/${segs[2]}`;
      rest = segs.slice(3);
    } else {
      return sendPageNotFound(res);
    }
    if (rest.length === 0) {
      const list = apiResourceList(cluster.registry, apiVersion);
      return list ? sendJson(res, 200, list) : sendStatus(res, newNotFoundPath());
    }
    const review = resolveReview(apiVersion, rest);
    if (review) {
      const { t, namespace } = review;
      record.resolve(
        {
          apiVersion: t.apiVersion,
          resource: t.info.plural,
          subresource: '',
          namespace: namespace ?? '',
          name: '',
        },
        false,
      );
      if (method === 'POST') validateWriteOptions(method, q);
      const answer = answerReview(
        review,
        method,
        () => decodeObject(body, req.headers['content-type']),
        {
          user,
          authenticator,
          now: cluster.now(),
          fieldManager: requestFieldManager(q, req.headers['user-agent']),
        },
      );
      return sendJson(res, 201, answer, pretty);
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

  /**
   * A routed resource request: recorded, checked against the fault rules, then served by its
   * verb's handler (handlers/), as kube-apiserver's endpoints/handlers.
   */
  async function serveResource(
    req: IncomingMessage,
    res: ServerResponse,
    route: ResourceRoute,
    method: string,
    q: URLSearchParams,
    body: Buffer | undefined,
    pretty: boolean,
    user: UserInfo,
  ): Promise<void> {
    const { t, namespace, name, subresource } = route;
    const record = inFlight.get(res);
    const watch = queryBool(q, 'watch') === true;
    record?.resolve(
      {
        apiVersion: t.apiVersion,
        resource: t.info.plural,
        subresource: subresource ?? '',
        namespace: namespace ?? '',
        name: name ?? '',
      },
      watch,
    );
    // go-restful picks a built-in's route by Accept before any handler runs; custom resources
    // and the pod subresources with handlers of their own negotiate for themselves.
    if (
      !t.crd &&
      (subresource === undefined || subresource === 'status' || subresource === 'scale')
    ) {
      const produces =
        method === 'GET' && name === undefined ? LIST_ROUTE_PRODUCES : ROUTE_PRODUCES;
      if (!routeAccepts(req.headers.accept, produces)) throw newRouteNotAcceptable(produces);
    }
    if (method !== 'GET' && method !== 'PATCH') validateWriteOptions(method, q);
    const verb = verbOf(method, name !== undefined, watch);
    const fault = opts.faults?.decide({
      verb,
      group: t.gr.group,
      resource: t.info.plural,
      subresource: subresource ?? '',
      namespace: namespace ?? '',
      name: name ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      user: user.username,
      resourceVersion: q.get('resourceVersion') ?? '',
      // Admission sees a create's object, named in its body: a quota's refusal names it.
      ...(verb === 'create' && opts.faults?.size ? { objectName: bodyName(body, req) } : {}),
    });
    if (fault) await injectHttpFault(fault, verb, res, record);
    const scope = requestScope({
      cluster,
      req,
      res,
      t,
      namespace,
      subresource,
      q,
      body,
      record,
      pretty,
      user,
    });
    // Only the verbs a path's REST storage implements have routes; go-restful answers any other
    // method with its own 405 (DELETE of pods/x/status must not delete the pod).
    if (name !== undefined) {
      const allowed = subresource === undefined ? OBJECT_METHODS : SUBRESOURCE_METHODS[subresource];
      if (allowed && !allowed.includes(method)) throw newMethodNotAllowedPath();
    }
    // TokenREST: a service account's token, issued, not stored.
    if (name !== undefined && subresource === 'token') {
      if (namespace === undefined) throw newNotFoundPath();
      if (method !== 'POST') throw newMethodNotSupported(t.gr, method.toLowerCase());
      const request = decodeObject(body, req.headers['content-type']);
      adoptRequestNamespace(request, t, namespace);
      return send(
        scope,
        201,
        createToken(cluster, { namespace, name }, request, {
          tokens,
          fieldManager: scope.fieldManager,
        }),
      );
    }
    // The pod subresources served by their own REST handlers (podlog.ts, eviction.ts, podbinding.ts).
    if (
      name !== undefined &&
      (subresource === 'log' || subresource === 'eviction' || subresource === 'binding')
    ) {
      if (namespace === undefined) throw newNotFoundPath();
      const key = { namespace, name };
      if (subresource === 'log' && method === 'GET')
        return servePodLog(cluster, req, res, key, q, closers, () => record?.started(200));
      if (subresource === 'eviction' && method === 'POST') {
        const eviction = decodeObject(body, req.headers['content-type']);
        return send(scope, 201, evictPod(cluster, key, eviction, q.getAll('dryRun')));
      }
      if (subresource === 'binding' && method === 'POST') {
        const binding = decodeObject(body, req.headers['content-type']);
        return send(scope, 201, bindPod(cluster, key, binding, scope.dryRun));
      }
      throw newMethodNotSupported(t.gr, method.toLowerCase());
    }
    if (name === undefined) {
      const listOpts = listOptionsOf(q, namespace);
      switch (method) {
        case 'GET':
          validateListOptions(q);
          if (watch) return watchResource(scope, listOpts, watchServing, fault);
          return listResource(scope, listOpts);
        case 'POST':
          return createResource(scope);
        case 'DELETE':
          return deleteCollection(scope, listOpts);
        default:
          // go-restful has no route for it: its 405, as the service error handler wraps it.
          throw newMethodNotAllowedPath();
      }
    }
    if (t.info.namespaced && namespace === undefined) throw newNotFoundPath();
    switch (method) {
      case 'GET':
        return getResource(scope, name);
      case 'PUT':
        return updateResource(scope, name);
      case 'PATCH':
        return patchResource(scope, name);
      case 'DELETE':
        return deleteResource(scope, name);
      default:
        throw newMethodNotAllowedPath();
    }
  }

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolveListen());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  // The `kubernetes` Service forwards to the apiserver's secure port: this one now.
  if (
    cluster.peek(
      { apiVersion: 'v1', kind: 'Service' },
      { namespace: 'default', name: 'kubernetes' },
    )
  )
    ensureKubernetesService(cluster, port);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  address = `${hostPart}:${port}`;
  const url = `https://${hostPart}:${port}`;
  // kube-apiserver's --service-account-issuer, and --api-audiences defaulting to it.
  const tokens = new ServiceAccountTokens(url, [url], cluster, () => cluster.clock.now());
  cluster.served({ caPem: certs.caPem, serviceAccountTokens: tokens });
  authenticator = new RequestAuthenticator(users, tokens);
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
    serviceAccountTokens: tokens,
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

/** The methods an object's path has routes for (its collection takes POST). */
const OBJECT_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE'];

/** The methods each subresource's REST storage serves (Getter, Updater and Patcher; Creater; ...). */
const SUBRESOURCE_METHODS: Partial<Record<string, string[]>> = {
  status: ['GET', 'PUT', 'PATCH'],
  scale: ['GET', 'PUT', 'PATCH'],
  approval: ['GET', 'PUT', 'PATCH'],
  finalize: ['PUT'],
  token: ['POST'],
  eviction: ['POST'],
  binding: ['POST'],
  log: ['GET'],
};

/** The audit record of each request being served; sendStatus adds the error to it. */
const inFlight = new WeakMap<ServerResponse, InFlight>();

const EMPTY_BODY = Buffer.alloc(0);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolveBody, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(newRequestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`));
      return;
    }
    // Each chunk is copied into one buffer as it arrives (of the declared length, or grown by
    // doubling for a chunked body), so the chunks are garbage at once: kept for a concat at the
    // end, a big body's chunks would outlive a minor GC and wait in the old generation for a major one.
    // The buffer is allocated when the first chunk arrives, not for a length merely declared.
    let buf = EMPTY_BODY;
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      if (size + c.length > MAX_BODY_BYTES) {
        failed = true;
        reject(newRequestEntityTooLarge(`limit is ${MAX_BODY_BYTES}`));
        return;
      }
      if (buf === EMPTY_BODY)
        buf = Buffer.allocUnsafe(Math.max(c.length, declared > 0 ? declared : 16 * 1024));
      else if (size + c.length > buf.length) {
        const grown = Buffer.allocUnsafe(
          Math.min(MAX_BODY_BYTES, Math.max(2 * buf.length, size + c.length)),
        );
        buf.copy(grown, 0, 0, size);
        buf = grown;
      }
      c.copy(buf, size);
      size += c.length;
    });
    req.on('end', () => {
      if (!failed) resolveBody(buf.subarray(0, size));
    });
    req.on('error', reject);
  });
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * A path no web service serves (an unknown root, an API group nothing serves): the apiserver's
 * NotFoundHandler, Go's http.NotFound, plain text rather than a Status.
 */
function sendPageNotFound(res: ServerResponse): void {
  inFlight.get(res)?.fail(newNotFoundPath().status);
  res.writeHead(404, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end('404 page not found\n');
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  inFlight.get(res)?.fail(err.status);
  // responsewriters.ErrorNegotiated: a Status asking for a delay says so in Retry-After too.
  const retryAfter = retryAfterOf(err);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  sendNegotiated(res, err.code, err.status);
}

/** The name in a create's body ('' when it has none or does not decode: its own 400 comes later). */
function bodyName(body: Buffer | undefined, req: IncomingMessage): string {
  try {
    return decodeObject(body, req.headers['content-type']).metadata.name ?? '';
  } catch {
    return '';
  }
}
