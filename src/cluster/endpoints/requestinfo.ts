/**
 * What a request addresses, from its raw request target, as k8s.io/apiserver's
 * RequestInfoFactory resolves it: the path is percent-decoded once and split on `/` — never
 * normalized, so `.` and `..` stay literal segments and cannot climb to another object — and a
 * resource name must be a valid path segment (apimachinery's validation/path), which the
 * apiserver's storage key functions enforce with a 400.
 */
import { newBadRequest } from '../apimachinery/errors';
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
