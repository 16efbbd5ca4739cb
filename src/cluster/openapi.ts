/**
 * OpenAPI documents, enough for clients that read them: every resource's operations carry
 * `x-kubernetes-group-version-kind` and the `fieldValidation` parameter, which is how kubectl
 * decides to validate on the server (kubectl apply's default --validate=strict), and custom
 * resources carry their CRD schema so `kubectl explain` has something to show.
 */
import { subresourceInfo } from './registry';
import type { Registry, ResourceType } from './registry';
import { SERVER_VERSION } from './discovery';
import { FNV32_OFFSET, fnv1a32 } from '../util/fnv';

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'].map((name) => ({
  name,
  in: 'query',
  schema: { type: 'string', uniqueItems: true },
}));

function gvk(t: ResourceType): object {
  return { group: t.info.group, version: t.info.version, kind: t.info.kind };
}

export function schemaName(t: ResourceType): string {
  const g = t.info.group || 'core';
  const rev = g.split('.').reverse().join('.');
  return t.crd
    ? `${rev}.${t.info.version}.${t.info.kind}`
    : `io.k8s.api.${g.split('.')[0]}.${t.info.version}.${t.info.kind}`;
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

export function openapiV2(reg: Registry): object {
  const p: Record<string, object> = {};
  const definitions: Record<string, object> = {};
  for (const t of reg.all()) {
    Object.assign(p, paths(t, true));
    definitions[schemaName(t)] = definition(t);
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths: p,
    definitions,
  };
}

/** The /openapi/v3 index: one entry per group/version. */
export function openapiV3Index(reg: Registry): object {
  const p: Record<string, object> = {};
  for (const t of reg.all()) {
    const key = t.info.group ? `apis/${t.apiVersion}` : `api/${t.apiVersion}`;
    p[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(reg, t.apiVersion)}` };
  }
  return { paths: p };
}

function hashOf(reg: Registry, apiVersion: string): string {
  let h = FNV32_OFFSET;
  for (const t of reg.all()) {
    if (t.apiVersion !== apiVersion) continue;
    h = fnv1a32(JSON.stringify([t.info, t.schema?.root ?? null]), h);
  }
  return h.toString(16).toUpperCase().padStart(8, '0');
}

export function openapiV3(reg: Registry, apiVersion: string): object | undefined {
  const types = reg.all().filter((t) => t.apiVersion === apiVersion);
  if (!types.length) return undefined;
  const p: Record<string, object> = {};
  const schemas: Record<string, object> = {};
  for (const t of types) {
    Object.assign(p, paths(t, false));
    schemas[schemaName(t)] = definition(t);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths: p,
    components: { schemas },
  };
}
