/**
 * The pinned Kubernetes release's API surface as scripts/apigen-discovery.mjs generates it from
 * the release's own discovery and OpenAPI documents (generated/, never committed): which
 * groups, versions and resources a default kube-apiserver of that release serves, its /version,
 * and its OpenAPI documents. Read from disk on first use, so loading a bundle stays cheap: the
 * discovery data when the first cluster is made, an OpenAPI document when a client asks for it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One entry of an APIResourceList, as the release's discovery lists it. */
export interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  /** Set on a subresource whose kind is of another group-version (autoscaling/v1 Scale). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** Only stored resources have one; reviews, bindings and component statuses have none. */
  storageVersionHash?: string;
}

/** The APIResourceList of one group-version, as the release serves it. */
export interface ApiResourceList {
  kind: 'APIResourceList';
  /** Absent from the core group's list, as kube-apiserver answers /api/v1. */
  apiVersion?: string;
  groupVersion: string;
  resources: ApiResource[];
}

export interface ApiGroupVersion {
  version: string;
  list: ApiResourceList;
}

/** A served group ('' is the core group), its versions in the order discovery lists them. */
export interface ApiGroupData {
  name: string;
  preferredVersion: string;
  versions: ApiGroupVersion[];
}

export interface ReleaseVersion {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
}

export interface ApiData {
  release: string;
  version: ReleaseVersion;
  /** In the order /api and /apis list them. */
  groups: ApiGroupData[];
  /** The release's aggregated /apis document (apidiscovery.k8s.io/v2), served versions only. */
  aggregated: { items: object[] } & Record<string, unknown>;
}

const MISSING =
  'the generated Kubernetes API is missing: run `npm run build` (it runs scripts/apigen-discovery.mjs)';

/**
 * The generated/ folder: beside the bundle's parent (dist/ → the extension's root) when built,
 * or the repository's root when running from source; found by walking up from this module.
 */
function generatedDir(): string {
  let dir = __dirname;
  for (;;) {
    const candidate = join(dir, 'generated', 'discovery', 'api.json');
    if (existsSync(candidate)) return join(dir, 'generated');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(MISSING);
    dir = parent;
  }
}

let dir: string | undefined;
let data: ApiData | undefined;

function root(): string {
  return (dir ??= generatedDir());
}

export function apiData(): ApiData {
  return (data ??= JSON.parse(
    readFileSync(join(root(), 'discovery', 'api.json'), 'utf8'),
  ) as ApiData);
}

/** The release's OpenAPI v2 document, as text (it is large: parsed only by who needs it). */
export function openapiV2Text(): string {
  return readFileSync(join(root(), 'openapi', 'v2.json'), 'utf8');
}

/**
 * The release's OpenAPI v3 document of one path (`api/v1`, `apis/apps/v1`, `apis/apps`,
 * `version`), as text; undefined when the release serves no such document.
 */
export function openapiV3Text(path: string): string | undefined {
  // Only a listed path names a file: a request's path never reaches the file system.
  if (!openapiV3Paths().includes(path)) return undefined;
  return readFileSync(join(root(), 'openapi', 'v3', `${path.split('/').join('__')}.json`), 'utf8');
}

/** Every path the release has an OpenAPI v3 document for. */
export function openapiV3Paths(): string[] {
  return v3Paths ?? (v3Paths = listV3());
}

let v3Paths: string[] | undefined;

function listV3(): string[] {
  return readdirSync(join(root(), 'openapi', 'v3'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length).split('__').join('/'))
    .sort();
}
