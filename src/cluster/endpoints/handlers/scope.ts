/**
 * What every verb's handler is given, as k8s.io/apiserver's `handlers.RequestScope` plus the
 * request: the resource the path named, the request's options, and the in-flight audit record.
 * server.ts routes a request and builds the scope once; the handlers (get.ts, list.ts, watch.ts,
 * create.ts, update.ts, patch.ts, delete.ts) each serve one verb from it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InFlight } from '../audit';
import type { Cluster, HandOver } from '../../cluster';
import type { ResourceType } from '../../registry/registry';
import type { ObjectKey, TypeRef, WriteOptions } from '../../apimachinery/types';
import { negotiatedOutput, negotiatedProtobuf, negotiatedYaml } from '../negotiation';
import type { UserInfo } from '../../auth/user';

export interface RequestScope {
  cluster: Cluster;
  req: IncomingMessage;
  res: ServerResponse;
  t: ResourceType;
  /** `{apiVersion, kind}` of `t`, as the cluster's calls take it. */
  type: TypeRef;
  namespace: string | undefined;
  subresource: string | undefined;
  q: URLSearchParams;
  body: Buffer | undefined;
  /** The request's audit record; handlers add the objects a write saw. */
  record: InFlight | undefined;
  pretty: boolean;
  dryRun: boolean;
  fieldManager: string;
  fieldValidation: 'Strict' | 'Ignore' | 'Warn' | undefined;
  /** Asked for a meta.k8s.io Table (`kubectl get`). */
  table: boolean;
  /** The meta.k8s.io version of a PartialObjectMetadata request, if it is one. */
  metaOnly: string | undefined;
  /**
   * Answered in protobuf: the Accept prefers it and the kind has it (built-ins do; custom
   * resources, Tables and PartialObjectMetadata are JSON, as kube-apiserver serves them).
   */
  protobuf: boolean;
  /** Answered in YAML: the Accept prefers application/yaml (objects, lists and errors). */
  yaml: boolean;
  /** Admission and validation warnings, sent as `Warning: 299` headers. */
  warnings: string[];
  /** Who is asking (a CertificateSigningRequest records it); undefined in-process. */
  user?: UserInfo;
}

/** Each routed request's warnings, for the answer of an error thrown past its handler. */
export const requestWarnings = new WeakMap<ServerResponse, string[]>();

/** Builds the scope of a routed resource request from its query and headers. */
export function requestScope(
  base: Pick<
    RequestScope,
    | 'cluster'
    | 'req'
    | 'res'
    | 't'
    | 'namespace'
    | 'subresource'
    | 'q'
    | 'body'
    | 'record'
    | 'pretty'
    | 'user'
  >,
): RequestScope {
  const { q, req, t } = base;
  const fv = q.get('fieldValidation');
  const output = negotiatedOutput(req.headers.accept);
  const table = wantsTable(req.headers.accept);
  const metaOnly = wantsPartialMetadata(req.headers.accept);
  const plain = !table && !metaOnly;
  const protobuf = !t.crd && plain && output === 'protobuf';
  const yaml = plain && output === 'yaml';
  if (protobuf) negotiatedProtobuf.add(base.res);
  if (yaml) negotiatedYaml.add(base.res);
  const warnings: string[] = [];
  requestWarnings.set(base.res, warnings);
  // The scope's own fields come first and the request's after: on Node 20's V8 an object literal
  // that starts with a spread gets each later property by a slow map transition (about 2 µs each,
  // 20 µs here per request); starting with plain properties keeps one shared map.
  return {
    type: { apiVersion: t.apiVersion, kind: t.info.kind },
    dryRun: q.getAll('dryRun').includes('All'),
    fieldManager: requestFieldManager(q, req.headers['user-agent']),
    fieldValidation: fv === 'Strict' || fv === 'Ignore' || fv === 'Warn' ? fv : undefined,
    table,
    metaOnly,
    protobuf,
    yaml,
    warnings,
    ...base,
  };
}

/**
 * The options of a write made from this request. Its body (or patch) was decoded for this request
 * alone, so the cluster may keep it rather than copy it, and the answer (and the audit's "after")
 * is the stored object itself, sent from its cached JSON.
 */
export function writeOptions(
  s: RequestScope,
  unknownFields?: string[],
  duplicateFields?: string[],
): WriteOptions & HandOver {
  return {
    dryRun: s.dryRun,
    fieldManager: s.fieldManager,
    warnings: s.warnings,
    owned: true,
    returnStored: true,
    ...(s.user ? { user: s.user } : {}),
    ...(s.fieldValidation ? { fieldValidation: s.fieldValidation } : {}),
    ...(unknownFields ? { unknownFields } : {}),
    ...(duplicateFields?.length ? { duplicateFields } : {}),
  };
}

/** The key of the object a named request is about. */
export function objectKey(s: RequestScope, name: string): ObjectKey {
  return s.namespace !== undefined ? { namespace: s.namespace, name } : { name };
}

/** A write's field manager: its `fieldManager` option, else its user agent's first word. */
export function requestFieldManager(q: URLSearchParams, userAgent: string | undefined): string {
  return q.get('fieldManager') ?? userAgentManager(userAgent);
}

/** The default field manager: the user agent's first word, as the apiserver's prefixFromUserAgent. */
function userAgentManager(ua: string | undefined): string {
  if (!ua) return 'unknown';
  const first = ua.split('/')[0].trim();
  return first.slice(0, 128) || 'unknown';
}

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
