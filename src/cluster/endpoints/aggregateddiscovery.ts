/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2`), as kube-apiserver's
 * `endpoints/discovery/aggregated` handler serves it: client-go asks `/api` and `/apis` with
 * `Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,…,application/json`
 * and, when answered in kind, learns every group, version and resource in two requests instead
 * of one per group-version. The legacy documents stay for clients that ask for plain JSON.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiData } from '../api/apidata';
import type { ApiResource, ApiResourceList } from '../api/apidata';
import { compareVersions, crdTypes } from './discovery';
import { subresourceInfo } from '../registry/registry';
import type { Registry, ResourceType } from '../registry/registry';

export const AGGREGATED_DISCOVERY_CONTENT_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Whether the Accept header prefers aggregated discovery v2 over the legacy documents: its
 * clauses are tried in order (client-go lists them by preference), the first one this server can
 * produce wins. v2beta1 is not served, as kube-apiserver no longer does.
 */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  for (const clause of (accept ?? '').split(',')) {
    const [type, ...params] = clause.split(';').map((p) => p.trim());
    const p = new Map(
      params.map((kv) => {
        const i = kv.indexOf('=');
        return [kv.slice(0, i), kv.slice(i + 1)] as [string, string];
      }),
    );
    const json = type === 'application/json' || type === '*/*' || type === 'application/*';
    if (!json) continue;
    if (!p.has('g') && !p.has('as')) return false;
    if (
      p.get('g') === 'apidiscovery.k8s.io' &&
      p.get('v') === 'v2' &&
      p.get('as') === 'APIGroupDiscoveryList'
    )
      return true;
  }
  return false;
}

/** A CRD's resource as apiextensions-apiserver's aggregated discovery describes it. */
function resource(t: ResourceType): object {
  const i = t.info;
  const kind = { group: i.group, version: i.version, kind: i.kind };
  const subresources = i.subresources.map((sub) => {
    const s = subresourceInfo(t, sub);
    return {
      subresource: sub,
      responseKind:
        s.group !== undefined ? { group: s.group, version: s.version, kind: s.kind } : kind,
      verbs: s.verbs,
    };
  });
  return {
    resource: i.plural,
    responseKind: kind,
    scope: i.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: i.singular,
    verbs: i.verbs,
    ...(i.shortNames.length ? { shortNames: i.shortNames } : {}),
    ...(i.categories ? { categories: i.categories } : {}),
    ...(subresources.length ? { subresources } : {}),
  };
}

const byName =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : 1;

/**
 * One built-in group-version's APIResourceList in the aggregated form, as kube-apiserver converts
 * it (endpoints/discovery/aggregated): resources and their subresources in name order, a kind of
 * the resource's own group-version with empty group and version.
 */
export function aggregatedVersion(list: ApiResourceList): object {
  const kindOf = (r: ApiResource) => ({
    group: r.group ?? '',
    kind: r.kind,
    version: r.version ?? '',
  });
  const top = list.resources.filter((r) => !r.name.includes('/'));
  const resources = top.sort(byName((r) => r.name)).map((r) => {
    const subresources = list.resources
      .filter((s) => s.name.startsWith(`${r.name}/`))
      .map((s) => ({
        responseKind: kindOf(s),
        subresource: s.name.slice(r.name.length + 1),
        verbs: s.verbs,
      }))
      .sort(byName((s) => s.subresource));
    return {
      ...(r.categories ? { categories: r.categories } : {}),
      resource: r.name,
      responseKind: kindOf(r),
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      ...(r.shortNames ? { shortNames: r.shortNames } : {}),
      singularResource: r.singularName,
      ...(subresources.length ? { subresources } : {}),
      verbs: r.verbs,
    };
  });
  return { freshness: 'Current', resources, version: list.groupVersion.split('/').pop() };
}

/**
 * The APIGroupDiscoveryList of `/api` (legacy: the core group only) or `/apis` (every other):
 * the release's groups, then the groups CRDs add.
 */
export function apiGroupDiscoveryList(reg: Registry, legacy: boolean): object {
  const builtin = legacy
    ? apiData()
        .groups.filter((g) => !g.name)
        .map((g) => ({ metadata: {}, versions: g.versions.map((v) => aggregatedVersion(v.list)) }))
    : apiData().aggregated.items;
  const byGroup = new Map<string, Map<string, ResourceType[]>>();
  for (const t of crdTypes(reg)) {
    if (!t.info.group !== legacy) continue;
    const versions = byGroup.get(t.info.group) ?? new Map<string, ResourceType[]>();
    versions.set(t.info.version, [...(versions.get(t.info.version) ?? []), t]);
    byGroup.set(t.info.group, versions);
  }
  const crdItems = [...byGroup].map(([group, versions]) => ({
    metadata: group ? { name: group } : {},
    versions: [...versions.keys()].sort(compareVersions).map((version) => ({
      version,
      resources: versions
        .get(version)!
        .sort(byName((t) => t.info.plural))
        .map(resource),
      freshness: 'Current',
    })),
  }));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: [...builtin, ...crdItems],
  };
}

/**
 * Answers with the document, an ETag of its content (a client that sends it back in
 * If-None-Match gets 304 Not Modified) and `Vary: Accept`, as kube-apiserver does.
 */
export function serveAggregatedDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  reg: Registry,
  legacy: boolean,
): void {
  const body = JSON.stringify(apiGroupDiscoveryList(reg, legacy));
  const etag = `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
  const headers = { ETag: etag, Vary: 'Accept', 'Cache-Control': 'public' };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, {
    ...headers,
    'Content-Type': AGGREGATED_DISCOVERY_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
