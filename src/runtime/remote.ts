/**
 * An ApiServer for any Kubernetes API server reached through a kubeconfig (@kubernetes/client-node):
 * the served fake cluster or a real one. Calls are REST requests made with the kubeconfig's
 * credentials and return promises; watches use client-node's Watch. Failures become the project's
 * StatusError, built from the server's Status body, so isNotFound/isConflict/isForbidden and the
 * traces read the same as against the in-process cluster. Resource names and scopes come from the
 * server's discovery (/api, /apis), fetched up front and again when an unknown kind is used (a CRD
 * installed after connecting). Time is the wall clock.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { StatusError } from '../cluster/apimachinery/errors';
import { newEvent } from '../cluster/controllers/events';
import type {
  DeleteOptions,
  KubeObject,
  ListMeta,
  ListOptions,
  ObjectKey,
  PatchType,
  ResourceInfo,
  Status,
  TypeRef,
  WatchEvent,
  WatchOptions,
} from '../cluster/apimachinery/types';
import { splitApiVersion } from '../cluster/apimachinery/types';
import { RealClock, type Clock } from '../util/clock';
import type { ApiServer, WatchHandle } from './apiserver';

export interface RemoteApiServerOptions {
  /** Defaults to the wall clock. */
  clock?: Clock;
  /** Field manager sent with writes (and required by server-side apply). */
  fieldManager?: string;
  /** Per-request timeout in ms (not for watches); default 30 s. */
  requestTimeoutMs?: number;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** The reason kube-apiserver gives each code, for error bodies that are not a Status. */
const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A StatusError from an HTTP answer: the server's Status when it sent one, else one made up. */
export function statusErrorFrom(code: number, body: string): StatusError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const s = parsed as Partial<Status> | undefined;
  if (s && s.kind === 'Status') {
    return new StatusError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: s.message ?? '',
      reason: s.reason || REASONS[code] || 'Unknown',
      ...(s.details ? { details: s.details } : {}),
      code: typeof s.code === 'number' && s.code > 0 ? s.code : code,
    });
  }
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: body.trim() || http.STATUS_CODES[code] || `HTTP ${code}`,
    reason: REASONS[code] ?? 'Unknown',
    code,
  });
}

export class RemoteApiServer implements ApiServer {
  readonly clock: Clock;
  private discovered: ResourceInfo[] = [];
  private discovering: Promise<void> | undefined;
  private readonly server: string;

  private constructor(
    readonly kubeConfig: KubeConfig,
    private readonly opts: RemoteApiServerOptions,
  ) {
    this.clock = opts.clock ?? new RealClock();
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  /** Connects and runs discovery (which also proves the server answers with these credentials). */
  static async connect(
    kubeConfig: KubeConfig,
    opts: RemoteApiServerOptions = {},
  ): Promise<RemoteApiServer> {
    const api = new RemoteApiServer(kubeConfig, opts);
    await api.refreshDiscovery();
    return api;
  }

  resources(): ResourceInfo[] {
    return this.discovered;
  }

  /** Re-reads /api and /apis (one request per group version). Concurrent callers share one run. */
  refreshDiscovery(): Promise<void> {
    this.discovering ??= this.discover().finally(() => (this.discovering = undefined));
    return this.discovering;
  }

  private async discover(): Promise<void> {
    const groupVersions: string[] = [];
    const core = (await this.request('GET', '/api')) as { versions?: string[] };
    for (const v of core.versions ?? []) groupVersions.push(v);
    const groups = (await this.request('GET', '/apis')) as {
      groups?: Array<{ name: string; versions?: Array<{ groupVersion: string }> }>;
    };
    for (const g of groups.groups ?? [])
      for (const v of g.versions ?? []) groupVersions.push(v.groupVersion);
    const lists = await Promise.all(
      groupVersions.map((gv) =>
        this.request('GET', gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`).catch(() => ({
          resources: [],
        })),
      ),
    );
    const out: ResourceInfo[] = [];
    lists.forEach((doc, i) => {
      const { group, version } = splitApiVersion(groupVersions[i]);
      const resources =
        (
          doc as {
            resources?: Array<{
              name: string;
              singularName?: string;
              namespaced: boolean;
              kind: string;
              verbs?: string[];
              shortNames?: string[];
              categories?: string[];
            }>;
          }
        ).resources ?? [];
      for (const r of resources) {
        if (r.name.includes('/')) continue;
        out.push({
          group,
          version,
          kind: r.kind,
          listKind: `${r.kind}List`,
          plural: r.name,
          singular: r.singularName || r.kind.toLowerCase(),
          namespaced: r.namespaced,
          verbs: r.verbs ?? [],
          subresources: resources
            .filter((s) => s.name.startsWith(`${r.name}/`))
            .map((s) => s.name.slice(r.name.length + 1)),
          shortNames: r.shortNames ?? [],
          ...(r.categories ? { categories: r.categories } : {}),
        });
      }
    });
    this.discovered = out;
  }

  /** The discovered resource for a type; rediscovers once when it is unknown (new CRD). */
  private async resourceFor(type: TypeRef): Promise<ResourceInfo> {
    const { group, version } = splitApiVersion(type.apiVersion);
    const find = () =>
      this.discovered.find(
        (r) => r.kind === type.kind && r.group === group && r.version === version,
      );
    let r = find();
    if (!r) {
      await this.refreshDiscovery();
      r = find();
    }
    if (!r) {
      throw new StatusError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `no matches for kind "${type.kind}" in version "${type.apiVersion}"`,
        reason: 'NotFound',
        code: 404,
      });
    }
    return r;
  }

  private async path(
    type: TypeRef,
    namespace: string | undefined,
    name?: string,
    subresource?: string,
  ): Promise<string> {
    const r = await this.resourceFor(type);
    const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    const n = name ? `/${encodeURIComponent(name)}` : '';
    return `${base}${ns}/${r.plural}${n}${subresource ? `/${subresource}` : ''}`;
  }

  private withManager(q: Record<string, string | undefined> = {}): string {
    if (this.opts.fieldManager) q.fieldManager = this.opts.fieldManager;
    return query(q);
  }

  // The calls spell out their signatures rather than take ApiServer['get'] and so on (as
  // FaultyApiServer does): every one here returns a Promise, narrower than ApiServer's
  // MaybePromise, and callers (recordEvent below, the remote tests) chain on it.

  async get(type: TypeRef, key: ObjectKey): Promise<KubeObject> {
    const obj = (await this.request(
      'GET',
      await this.path(type, key.namespace, key.name),
    )) as KubeObject;
    return withType(obj, type);
  }

  /** Lists every page (the reflector's pager), items carrying apiVersion/kind as watch objects do. */
  async list(
    type: TypeRef,
    opts: ListOptions = {},
  ): Promise<{ items: KubeObject[]; metadata: ListMeta }> {
    const path = await this.path(type, opts.namespace);
    const items: KubeObject[] = [];
    let cont = opts.continue;
    let metadata: ListMeta = {};
    for (;;) {
      const page = (await this.request(
        'GET',
        path +
          query({
            labelSelector: opts.labelSelector,
            fieldSelector: opts.fieldSelector,
            limit: opts.limit !== undefined ? String(opts.limit) : undefined,
            continue: cont,
            resourceVersion: cont ? undefined : opts.resourceVersion,
          }),
      )) as { items?: KubeObject[]; metadata?: ListMeta };
      for (const o of page.items ?? []) items.push(withType(o, type));
      metadata = page.metadata ?? {};
      cont = metadata.continue;
      if (!cont || opts.limit !== undefined) break;
    }
    return { items, metadata };
  }

  async create(obj: KubeObject, opts: { dryRun?: boolean } = {}): Promise<KubeObject> {
    const type = typeOf(obj);
    const path = await this.path(type, obj.metadata.namespace);
    const q = this.withManager({ dryRun: opts.dryRun ? 'All' : undefined });
    return withType((await this.request('POST', path + q, obj)) as KubeObject, type);
  }

  async update(obj: KubeObject, opts: { subresource?: 'status' } = {}): Promise<KubeObject> {
    const type = typeOf(obj);
    const path = await this.path(type, obj.metadata.namespace, obj.metadata.name, opts.subresource);
    return withType(
      (await this.request('PUT', path + this.withManager(), obj)) as KubeObject,
      type,
    );
  }

  async patch(
    type: TypeRef,
    key: ObjectKey,
    patch: unknown,
    patchType: PatchType,
    opts: { subresource?: 'status' } = {},
  ): Promise<KubeObject> {
    const path = await this.path(type, key.namespace, key.name, opts.subresource);
    const q = this.withManager(
      patchType === 'apply' && !this.opts.fieldManager ? { fieldManager: 'reconcile-studio' } : {},
    );
    const out = await this.request('PATCH', path + q, patch, PATCH_CONTENT_TYPES[patchType]);
    return withType(out as KubeObject, type);
  }

  async delete(type: TypeRef, key: ObjectKey, opts: DeleteOptions = {}): Promise<unknown> {
    const path = await this.path(type, key.namespace, key.name);
    const { dryRun, ...rest } = opts;
    const body = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      ...rest,
      ...(dryRun ? { dryRun: ['All'] } : {}),
    };
    return this.request('DELETE', path, body);
  }

  /**
   * ctx.recorder's events as core/v1 Events, the way client-go's recorder writes them (one Event
   * per call here, without its aggregation). Best effort: a failure is only logged, never thrown
   * into the reconcile.
   */
  recordEvent(
    involved: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    source?: string,
  ): void {
    const ms = this.clock.now();
    const event = newEvent(involved, type, reason, message, source ?? 'reconcile-studio', {
      ms,
      seq: this.eventSeq++,
      timestamp: new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    this.create(event).catch((err: unknown) =>
      console.error(`could not record event ${reason}: ${(err as Error).message}`),
    );
  }

  private eventSeq = 0;

  /**
   * A watch through client-node's Watch. Events are delivered as they are read; `onClose` gets
   * the failure (an HTTP 410 carries statusCode 410) or nothing when the server ended the watch.
   */
  watch(
    type: TypeRef,
    opts: WatchOptions,
    onEvent: (e: WatchEvent) => void,
    onClose?: (err?: unknown) => void,
  ): WatchHandle {
    let stopped = false;
    let abort: AbortController | undefined;
    const close = (err?: unknown) => {
      if (stopped) return;
      stopped = true;
      onClose?.(err ?? undefined);
    };
    void (async () => {
      try {
        const path = await this.path(type, opts.namespace);
        if (stopped) return;
        abort = await new Watch(this.kubeConfig).watch(
          path,
          {
            ...(opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {}),
            ...(opts.allowWatchBookmarks ? { allowWatchBookmarks: true } : {}),
            ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
            ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
            // client-node's Watch gives up on a request after 30 s: ask the server to end the
            // watch before that, so it closes cleanly and is resumed at once (client-go's
            // reflector asks for 5-10 minutes for the same reason with its own limits).
            timeoutSeconds: opts.timeoutSeconds ?? WATCH_TIMEOUT_SECONDS,
          },
          (evType: string, obj: unknown) => {
            if (stopped) return;
            const e = { type: evType, object: obj } as WatchEvent;
            if (e.type === 'ERROR') {
              onEvent(e);
              return;
            }
            onEvent({ type: e.type, object: withType(e.object, type) });
          },
          (err: unknown) => close(isTimeout(err) ? undefined : err),
        );
        if (stopped) abort.abort();
      } catch (err) {
        close(err);
      }
    })();
    return {
      stop: () => {
        stopped = true;
        abort?.abort();
      },
    };
  }

  /** One REST call with the kubeconfig's credentials; JSON in and out, StatusError on failure. */
  private async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<unknown> {
    const url = new URL(this.server + path);
    const payload = body !== undefined ? Buffer.from(JSON.stringify(body)) : undefined;
    const options: https.RequestOptions = {
      method,
      headers: {
        Accept: 'application/json',
        // Node frames a DELETE body only when its length is given.
        ...(payload ? { 'Content-Type': contentType, 'Content-Length': payload.length } : {}),
      },
    };
    await this.kubeConfig.applyToHTTPSOptions(options);
    const timeout = this.opts.requestTimeoutMs ?? 30_000;
    const { status, text } = await new Promise<{ status: number; text: string }>((res, rej) => {
      const send = url.protocol === 'http:' ? http.request : https.request;
      const req = send(url, options, (resp) => {
        const chunks: Buffer[] = [];
        resp.on('data', (c: Buffer) => chunks.push(c));
        resp.on('end', () =>
          res({ status: resp.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        resp.on('error', rej);
      });
      req.setTimeout(timeout, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', rej);
      req.end(payload);
    });
    if (status < 200 || status >= 300) throw statusErrorFrom(status, text);
    return text ? (JSON.parse(text) as unknown) : {};
  }
}

const WATCH_TIMEOUT_SECONDS = 25;

/** node-fetch's own timeout ends a watch that was merely quiet: a clean close, not a failure. */
function isTimeout(err: unknown): boolean {
  const t = (err as { type?: unknown } | null)?.type;
  return t === 'request-timeout' || t === 'body-timeout';
}

function typeOf(obj: KubeObject): TypeRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

/** Objects in a list come without apiVersion/kind; the cache and handlers need them. */
function withType(obj: KubeObject, type: TypeRef): KubeObject {
  if (obj && typeof obj === 'object' && (!obj.apiVersion || !obj.kind)) {
    obj.apiVersion = type.apiVersion;
    obj.kind = type.kind;
  }
  return obj;
}

function query(q: Record<string, string | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}
