/**
 * Response negotiation, as k8s.io/apiserver's `endpoints/handlers/negotiation`: whether a response
 * is indented (isPrettyPrint) and whether it is protobuf (NegotiateOutputMediaType).
 */
import type { ServerResponse } from 'node:http';

/** strconv.ParseBool: these spellings only; anything else is an error (which reads as false). */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * `pretty` when given (Go's ParseBool, so `True` and `1` count, and `yes` does not); otherwise
 * the user agents of people at a terminal or a browser (curl, Wget, Mozilla/5.0) get indented
 * JSON, as from kube-apiserver.
 */
export function isPrettyPrint(q: URLSearchParams, userAgent: string | undefined): boolean {
  const pp = q.get('pretty');
  if (pp) return GO_TRUE.has(pp);
  const ua = userAgent ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

export interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
}

/** goautoneg's ParseAccept: clauses by quality, a concrete type before a wildcard of equal q. */
export function acceptClauses(accept: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of accept.split(',')) {
    const [mediaRange, ...params] = part.split(';').map((x) => x.trim());
    const [type = '', subtype = '*'] = mediaRange.toLowerCase().split('/');
    if (!type) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((x) => x.trim());
      if (k === 'q') q = Number(v);
    }
    clauses.push({ type, subtype, q: Number.isFinite(q) ? q : 0 });
  }
  const specificity = (c: AcceptClause) => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a));
}

const OUTPUT_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
];

/** The serializations an object response can take. */
export type OutputType = 'json' | 'yaml' | 'protobuf';

/**
 * What the response to this Accept is: the first acceptable clause (by quality) that the
 * apiserver serves decides (a wildcard gets JSON, the first of the serializers), as
 * NegotiateOutputMediaType decides.
 */
export function negotiatedOutput(accept: string | undefined): OutputType {
  if (!accept || accept === 'application/json') return 'json';
  for (const c of acceptClauses(accept ?? '')) {
    if (c.q <= 0) continue;
    const match = OUTPUT_TYPES.find(
      (t) =>
        (c.type === '*' || t.startsWith(`${c.type}/`)) &&
        (c.subtype === '*' || t.endsWith(`/${c.subtype}`)),
    );
    if (match === 'application/vnd.kubernetes.protobuf') return 'protobuf';
    if (match === 'application/yaml') return 'yaml';
    if (match) return 'json';
  }
  return 'json';
}

/** Whether the response to this Accept is protobuf (see negotiatedOutput). */
export function prefersProtobuf(accept: string | undefined): boolean {
  return negotiatedOutput(accept) === 'protobuf';
}

/** Responses whose request negotiated YAML: their errors are YAML Status too. */
export const negotiatedYaml = new WeakSet<ServerResponse>();

/**
 * Responses whose request negotiated protobuf (requestScope marks them): an error they end in is
 * a protobuf Status too, as responsewriters.ErrorNegotiated encodes it.
 */
export const negotiatedProtobuf = new WeakSet<ServerResponse>();

/** What a built-in resource's go-restful routes produce: every route, and a collection's GET. */
export const ROUTE_PRODUCES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
];
export const LIST_ROUTE_PRODUCES = [
  ...ROUTE_PRODUCES,
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch',
];

/**
 * go-restful's route selection by Accept (Route.matchesAccept): a media range matches when it is
 * `*` + `/*` or, without its parameters, equals a type the route produces (parameters of the
 * produced type included, so `text/*` or `application/*` match nothing). No Accept is `*` + `/*`.
 */
export function routeAccepts(accept: string | undefined, produces: readonly string[]): boolean {
  for (const part of (accept || '*/*').split(',')) {
    const range = part.split(';')[0].trim();
    if (range === '*/*' || produces.includes(range)) return true;
  }
  return false;
}
