/**
 * OpenAPI documents: the pinned release's own v2 and v3 documents (apidata.ts) for the built-in
 * kinds, and for custom resources what apiextensions-apiserver adds: operations carrying
 * `x-kubernetes-group-version-kind` and the `fieldValidation` parameter (how kubectl decides to
 * validate on the server) and the CRD's schema, so `kubectl explain` has something to show.
 */
import { subresourceInfo } from '../registry/registry';
import type { Registry, ResourceType } from '../registry/registry';
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { apiData, openapiV2Text, openapiV3Paths, openapiV3Text } from '../api/apidata';
import { crdTypes } from './discovery';

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'].map((name) => ({
  name,
  in: 'query',
  schema: { type: 'string', uniqueItems: true },
}));

function gvk(t: ResourceType): object {
  return { group: t.info.group, version: t.info.version, kind: t.info.kind };
}

/** A CRD's schema name, as apiextensions-apiserver names it (the group reversed). */
function schemaName(t: ResourceType): string {
  const rev = t.info.group.split('.').reverse().join('.');
  return `${rev}.${t.info.version}.${t.info.kind}`;
}

function paths(t: ResourceType, v2: boolean): Record<string, object> {
  const prefix = t.info.group ? `/apis/${t.apiVersion}` : `/api/${t.apiVersion}`;
  const base = t.info.namespaced
    ? `${prefix}/namespaces/{namespace}/${t.info.plural}`
    : `${prefix}/${t.info.plural}`;
  const ext = { 'x-kubernetes-group-version-kind': gvk(t) };
  const params = v2
    ? QUERY_PARAMS.map(({ name, in: where }) => ({
        name,
        in: where,
        type: 'string',
        uniqueItems: true,
      }))
    : QUERY_PARAMS;
  const op = (action: string) => ({
    'x-kubernetes-action': action,
    ...ext,
    parameters: params,
    responses: { '200': { description: 'OK' } },
  });
  const out: Record<string, object> = {
    [base]: { get: op('list'), post: op('post'), delete: op('deletecollection') },
    [`${base}/{name}`]: {
      get: op('get'),
      put: op('put'),
      patch: op('patch'),
      delete: op('delete'),
    },
  };
  // A subresource's operations are its discovery verbs (pods/log: get; pods/eviction: create).
  const methodOf: Record<string, string> = {
    get: 'get',
    update: 'put',
    patch: 'patch',
    create: 'post',
  };
  for (const sub of t.info.subresources)
    out[`${base}/{name}/${sub}`] = Object.fromEntries(
      subresourceInfo(t, sub).verbs.map((v) => [methodOf[v], op(methodOf[v])]),
    );
  return out;
}

function definition(t: ResourceType): object {
  const root = (t.schema?.root ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  }) as Record<string, unknown>;
  return { ...root, 'x-kubernetes-group-version-kind': [gvk(t)] };
}

/** The release's v2 document, parsed once (about 2 MB): its info.version the release's. */
let releaseV2: { paths: Record<string, object>; definitions: Record<string, object> } | undefined;

function builtinV2(): NonNullable<typeof releaseV2> {
  if (!releaseV2) {
    releaseV2 = JSON.parse(openapiV2Text()) as NonNullable<typeof releaseV2>;
    Object.assign(releaseV2, { info: releaseInfo() });
  }
  return releaseV2;
}

/**
 * kube-apiserver titles its documents "Kubernetes" and versions them with its binary's
 * major.minor ("1.36"; the release's documents say "unversioned", made by a build without one).
 */
export function releaseInfo(): { title: string; version: string } {
  const { major, minor } = apiData().version;
  return { title: 'Kubernetes', version: `${major}.${minor}` };
}

/** What the CRDs add to the release's v2 document: their paths and definitions. */
export interface OpenapiV2Additions {
  paths: Record<string, object>;
  definitions: Record<string, object>;
}

export function openapiV2Additions(reg: Registry): OpenapiV2Additions {
  const p: Record<string, object> = {};
  const definitions: Record<string, object> = {};
  for (const t of crdTypes(reg)) {
    Object.assign(p, paths(t, true));
    definitions[schemaName(t)] = definition(t);
  }
  return { paths: p, definitions };
}

/** /openapi/v2: the release's document with every CRD's paths and schema added after its own. */
export function openapiV2(add: OpenapiV2Additions): object {
  const base = builtinV2();
  if (!Object.keys(add.paths).length && !Object.keys(add.definitions).length) return base;
  return {
    ...base,
    paths: { ...base.paths, ...add.paths },
    definitions: { ...base.definitions, ...add.definitions },
  };
}

/** The release's v3 documents by path, as served (info.version set), read on first request. */
const releaseV3 = new Map<string, string>();

function builtinV3(path: string): string | undefined {
  let text = releaseV3.get(path);
  if (text === undefined) {
    const raw = openapiV3Text(path);
    if (raw === undefined) return undefined;
    text = JSON.stringify({ ...(JSON.parse(raw) as object), info: releaseInfo() });
    releaseV3.set(path, text);
  }
  return text;
}

/** kube-openapi's ETag of a document, which is also the hash its index links with. */
export function openapiHash(text: string): string {
  return createHash('sha512').update(text).digest('hex').toUpperCase();
}

/** The release's documents never change: each is hashed once, not on every index request. */
const builtinHashes = new Map<string, string>();

function builtinHash(path: string): string {
  let h = builtinHashes.get(path);
  if (h === undefined) builtinHashes.set(path, (h = openapiHash(builtinV3(path)!)));
  return h;
}

/** The v3 path of a group-version: `api/v1`, `apis/apps/v1`. */
const v3Path = (apiVersion: string) =>
  apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;

/**
 * /openapi/v3: every path with a document, each linked with its content's hash, as
 * kube-openapi's handler3 lists them; the CRDs' group-versions after the release's.
 */
export function openapiV3Index(reg: Registry): object {
  const p: Record<string, object> = {};
  const link = (path: string, hash: string) => {
    p[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  };
  for (const path of openapiV3Paths()) link(path, builtinHash(path));
  for (const t of crdTypes(reg)) {
    const path = v3Path(t.apiVersion);
    if (!(path in p)) link(path, openapiHash(openapiV3Document(reg, path)!));
  }
  return { paths: p };
}

/** The v3 document of one path, as text: the release's, or one made from the CRDs it serves. */
export function openapiV3Document(reg: Registry, path: string): string | undefined {
  const builtin = builtinV3(path);
  if (builtin !== undefined) return builtin;
  const types = crdTypes(reg).filter((t) => v3Path(t.apiVersion) === path);
  if (!types.length) return undefined;
  const p: Record<string, object> = {};
  const schemas: Record<string, object> = {};
  for (const t of types) {
    Object.assign(p, paths(t, false));
    schemas[schemaName(t)] = definition(t);
  }
  return JSON.stringify({
    openapi: '3.0.0',
    info: releaseInfo(),
    paths: p,
    components: { schemas },
  });
}

/**
 * Answers `/openapi/v3/<path>` as kube-openapi's handler3 does: the document with its hash as
 * ETag; asked with `?hash=` of another content, a 301 to the current one; with the current hash,
 * cacheable for a year. False when there is no such document (the caller answers 404).
 */
export function serveOpenapiV3(
  res: ServerResponse,
  reg: Registry,
  path: string,
  hash: string | null,
): boolean {
  const text = openapiV3Document(reg, path);
  if (text === undefined) return false;
  const etag = builtinV3(path) === text ? builtinHash(path) : openapiHash(text);
  const headers: Record<string, string | number> = { Etag: `"${etag}"`, Vary: 'Accept' };
  if (hash) {
    if (hash !== etag) {
      res.writeHead(301, { ...headers, Location: `/openapi/v3/${path}?hash=${etag}` });
      res.end();
      return true;
    }
    headers['Cache-Control'] = 'public, immutable';
    headers.Expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  }
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
  return true;
}
