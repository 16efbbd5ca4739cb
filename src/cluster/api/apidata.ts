/**
 * The pinned Kubernetes release's API surface as scripts/apigen-discovery.mjs generates it from
 * the release's own discovery and OpenAPI documents (generated/, never committed): which
 * groups, versions and resources a default kube-apiserver of that release serves, its /version,
 * and its OpenAPI documents. Read from disk on first use, so loading a bundle stays cheap: the
 * discovery data when the first cluster is made, an OpenAPI document when a client asks for it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';

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

/**
 * A file of generated/ (`generatedFile('api', 'types.json')`): the bundles read the generated
 * data from the one copy the extension ships, instead of each carrying its own.
 */
export function generatedFile(...parts: string[]): string {
  return join(root(), ...parts);
}

export function apiData(): ApiData {
  return (data ??= JSON.parse(
    readFileSync(join(root(), 'discovery', 'api.json'), 'utf8'),
  ) as ApiData);
}

interface OpenapiIndex {
  /** [byte offset, byte length] in the decompressed documents. */
  v2: [number, number];
  /** The v2 document as gnostic's protobuf (tools/openapiv2pb), as kube-apiserver serves it. */
  v2pb: [number, number];
  v3: Record<string, [number, number]>;
}

let openapi: { index: OpenapiIndex; documents: Buffer } | undefined;

/** The release's OpenAPI documents, decompressed on the first request for one (about 40 ms). */
function openapiDocuments(): NonNullable<typeof openapi> {
  return (openapi ??= {
    index: JSON.parse(readFileSync(join(root(), 'openapi', 'index.json'), 'utf8')) as OpenapiIndex,
    documents: brotliDecompressSync(readFileSync(join(root(), 'openapi', 'documents.br'))),
  });
}

function slice([offset, length]: [number, number]): string {
  return openapiDocuments().documents.toString('utf8', offset, offset + length);
}

/** The release's OpenAPI v2 document, as text (it is large: parsed only by who needs it). */
export function openapiV2Text(): string {
  return slice(openapiDocuments().index.v2);
}

/** The release's OpenAPI v2 document as gnostic's openapi_v2.Document, protobuf-encoded. */
export function openapiV2Protobuf(): Buffer {
  const [offset, length] = openapiDocuments().index.v2pb;
  return openapiDocuments().documents.subarray(offset, offset + length);
}

/** One field of a message of gnostic's OpenAPIv2.proto: number, kind, the message it holds. */
export type ProtoField = [number, string, string];

let v2Fields: Record<string, Record<string, ProtoField>> | undefined;

/** The fields of each message of OpenAPIv2.proto, by message and field name (generated). */
export function openapiV2Fields(): Record<string, Record<string, ProtoField>> {
  return (v2Fields ??= JSON.parse(
    readFileSync(join(root(), 'openapi', 'v2fields.json'), 'utf8'),
  ) as Record<string, Record<string, ProtoField>>);
}

/**
 * The release's OpenAPI v3 document of one path (`api/v1`, `apis/apps/v1`, `apis/apps`,
 * `version`), as text; undefined when the release serves no such document.
 */
export function openapiV3Text(path: string): string | undefined {
  const at = Object.hasOwn(openapiDocuments().index.v3, path)
    ? openapiDocuments().index.v3[path]
    : undefined;
  return at && slice(at);
}

/** Every path the release has an OpenAPI v3 document for, in name order. */
export function openapiV3Paths(): string[] {
  return Object.keys(openapiDocuments().index.v3).sort();
}
