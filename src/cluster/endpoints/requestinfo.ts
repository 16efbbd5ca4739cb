/**
 * What a request addresses, from its raw request target, as k8s.io/apiserver's
 * RequestInfoFactory resolves it: the path is percent-decoded once and split on `/` — never
 * normalized, so `.` and `..` stay literal segments and cannot climb to another object — and a
 * resource name must be a valid path segment (apimachinery's validation/path), which the
 * apiserver's storage key functions enforce with a 400.
 */
import { newBadRequest } from '../apimachinery/errors';
import { parseFieldSelector } from '../apimachinery/selector';
import { queryBool } from './decode';
import type { Registry, ResourceType } from '../registry/registry';

export interface RequestTarget {
  /** The decoded path, as Go's URL.Path. */
  path: string;
  /** The path's segments, as requestinfo's splitPath: trimmed of `/` at both ends, then split. */
  segments: string[];
  query: URLSearchParams;
}

/**
 * Splits a raw request target (origin-form `/a/b?q`, or absolute-form `https://h/a/b?q`). The
 * WHATWG URL parser would resolve `%2e%2e` to a parent directory, so it is not used for the path.
 * A malformed escape is a 400, as Go's URL parser refuses such a request.
 */
export function parseRequestTarget(raw: string): RequestTarget {
  const q = raw.indexOf('?');
  let rawPath = q < 0 ? raw : raw.slice(0, q);
  const rawQuery = q < 0 ? '' : raw.slice(q + 1);
  if (!rawPath.startsWith('/'))
    rawPath = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(rawPath)?.[1] ?? '/';
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2})[\s\S]{0,2}/.exec(rawPath)?.[0];
    throw newBadRequest(
      bad ? `invalid URL escape ${JSON.stringify(bad)}` : 'invalid URL escape: not UTF-8',
    );
  }
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return {
    path,
    segments: trimmed === '' ? [] : trimmed.split('/'),
    query: new URLSearchParams(rawQuery),
  };
}

/** NameMayNotBe / NameMayNotContain of k8s.io/apimachinery/pkg/api/validation/path. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/** A resource request: the type, and the namespace, name and subresource the path names. */
export interface ResourceRoute {
  t: ResourceType;
  namespace?: string;
  name?: string;
  subresource?: string;
  /**
   * Addressed through the deprecated `watch/` prefix (`/api/v1/watch/namespaces/NS/configmaps`),
   * which requestinfo reads as the `watch` verb and kube-apiserver still serves.
   */
  watch?: true;
}

/**
 * Resolves `[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]]` (the part after the group/version).
 * Undefined when nothing is served there (404); an empty segment names nothing either, as a
 * go-restful route parameter cannot be empty.
 */
export function resolveResource(
  registry: Registry,
  apiVersion: string,
  rest: string[],
): ResourceRoute | undefined {
  if (rest.some((s) => s === '')) return undefined;
  // requestinfo's special verbs: `watch` before the resource path makes the request a watch.
  const watch = rest[0] === 'watch' && rest.length > 1;
  let namespace: string | undefined;
  let r = watch ? rest.slice(1) : rest;
  const nsType = registry.forResource(apiVersion, 'namespaces');
  if (
    r[0] === 'namespaces' &&
    r.length >= 3 &&
    !(nsType && r.length === 3 && ['status', 'finalize'].includes(r[2]))
  ) {
    namespace = r[1];
    r = r.slice(2);
  }
  const [resource, name, subresource, ...extra] = r;
  if (extra.length) return undefined;
  const t = registry.forResource(apiVersion, resource);
  if (!t) return undefined;
  // Watch routes are installed for collections and objects only, never for subresources.
  if (watch && (subresource !== undefined || !t.info.verbs.includes('watch'))) return undefined;
  if (namespace !== undefined && !t.info.namespaced) return undefined;
  if (
    subresource &&
    !t.info.subresources.includes(subresource) &&
    !(subresource === 'finalize' && t.info.kind === 'Namespace')
  )
    return undefined;
  if (name !== undefined) {
    // The storage key functions (NamespaceKeyFunc / NoNamespaceKeyFunc) refuse such names.
    const msgs = isValidPathSegmentName(name);
    if (msgs.length)
      throw newBadRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${msgs.join(';')}`);
  }
  return {
    t,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(subresource ? { subresource } : {}),
    ...(watch ? { watch: true as const } : {}),
  };
}

/**
 * k8s.io/apiserver's RequestInfo, for a cluster this process does not serve: what
 * RequestInfoFactory.NewRequestInfo reads from the method and the path alone, knowing nothing of
 * the resources served there (the recording proxy, src/proxy, records a real cluster's requests
 * with it). `verb` is the apiserver's verb: a non-resource request's is its method in lower case.
 */
export interface RequestInfo {
  isResourceRequest: boolean;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_PREFIXES = new Set(['api']);
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const SPECIAL_VERBS_NO_SUBRESOURCES = new Set(['proxy']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** NewRequestInfo of k8s.io/apiserver/pkg/endpoints/request/requestinfo.go, step for step. */
export function requestInfoOf(method: string, rawTarget: string): RequestInfo {
  const { segments, query } = parseRequestTarget(rawTarget);
  const info: RequestInfo = {
    isResourceRequest: false,
    verb: method.toLowerCase(),
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  let parts = segments;
  if (parts.length < 3 || !API_PREFIXES.has(parts[0])) return info;
  const prefix = parts[0];
  parts = parts.slice(1);
  if (!GROUPLESS_PREFIXES.has(prefix)) {
    // The prefix is consumed: "do we have four parts?"
    if (parts.length < 3) return info;
    info.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  info.isResourceRequest = true;
  info.apiVersion = parts[0];
  parts = parts.slice(1);
  if (SPECIAL_VERBS.has(parts[0])) {
    // Upstream answers an error here ("unable to determine kind and namespace"); the request is
    // then served as a non-resource one, which is what the audit log shows.
    if (parts.length < 2) return { ...info, isResourceRequest: false };
    info.verb = parts[0];
    parts = parts.slice(1);
  } else info.verb = METHOD_VERBS[method] ?? '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1];
      // Another step after the namespace name that is not a namespace subresource is a resource.
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && !SPECIAL_VERBS_NO_SUBRESOURCES.has(info.verb))
    info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];
  if (info.name === '' && info.verb === 'get') {
    info.verb = queryBool(query, 'watch') === true ? 'watch' : 'list';
    // A list or watch of one object by field selector names it, as the audit log shows.
    const named = exactNameOf(query.get('fieldSelector'));
    if (named !== undefined && isValidPathSegmentName(named).length === 0) info.name = named;
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

/** The name a field selector requires exactly (fields.Selector.RequiresExactMatch("metadata.name")). */
function exactNameOf(selector: string | null): string | undefined {
  try {
    const reqs = parseFieldSelector(selector ?? '');
    return reqs.find((r) => r.field === 'metadata.name' && r.op === '=')?.value;
  } catch {
    // A selector that does not parse: the parameter codec's error leaves the name unset.
    return undefined;
  }
}
