/**
 * GET /openapi/v2 as kube-openapi's handler (pkg/handler) answers it: the document as JSON or as
 * gnostic's protobuf (what kubectl's validation and client-go's discovery OpenAPISchema ask for,
 * and proto.Unmarshal), whichever the first Accept clause by quality matches; 406 with no body
 * when none does. Both forms carry the ETag of the JSON (a SHA-512, upper-case hex) and the time
 * the document was last made, and a request with a matching If-None-Match, or an
 * If-Modified-Since not before that time, gets 304, as http.ServeContent answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openapiV2Protobuf } from '../api/apidata';
import type { Registry } from '../registry/registry';
import { acceptClauses } from './negotiation';
import { openapiHash, openapiV2, openapiV2Additions, releaseInfo } from './openapi';
import { encodeOpenapiV2 } from './openapiv2pb';

/** kube-openapi's media types: the deprecated one (client-go's) is answered with the current. */
const PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const ACCEPTED: [type: string, subtype: string, contentType: string, protobuf: boolean][] = [
  ['application', 'json', 'application/json', false],
  ['application', 'com.github.proto-openapi.spec.v2@v1.0+protobuf', PROTOBUF, true],
  ['application', 'com.github.proto-openapi.spec.v2.v1.0+protobuf', PROTOBUF, true],
];

interface Served {
  /** The CRDs' additions, as JSON: the document is made again only when they change. */
  key: string;
  json: Buffer;
  etag: string;
  /** Made on the first request for it: most clients never ask. */
  protobuf?: Buffer;
  additions: ReturnType<typeof openapiV2Additions>;
  /** Whole seconds, as Last-Modified carries them. */
  lastModified: Date;
}

const served = new WeakMap<Registry, Served>();

function current(reg: Registry): Served {
  const additions = openapiV2Additions(reg);
  const key = JSON.stringify(additions);
  const cached = served.get(reg);
  if (cached?.key === key) return cached;
  const text = JSON.stringify(openapiV2(additions));
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const json = Buffer.from(text);
  const made: Served = { key, json, etag: openapiHash(text), additions, lastModified: now };
  served.set(reg, made);
  return made;
}

/**
 * The release's protobuf (made by gnostic from its JSON when the API was generated), then a
 * second Document with the served info and the CRDs' additions, which a reader merges in.
 */
function protobufOf(s: Served): Buffer {
  return (s.protobuf ??= Buffer.concat([
    openapiV2Protobuf(),
    encodeOpenapiV2({ info: releaseInfo(), ...s.additions }),
  ]));
}

/** If-None-Match: any of its entity tags (weakly compared) or `*` matches. */
function noneMatch(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === `"${etag}"`);
}

export function serveOpenapiV2(req: IncomingMessage, res: ServerResponse, reg: Registry): void {
  res.setHeader('Vary', 'Accept');
  const clauses = acceptClauses(req.headers.accept || '*/*');
  for (const c of clauses) {
    const match = ACCEPTED.find(
      ([type, subtype]) =>
        (c.type === type || c.type === '*') && (c.subtype === subtype || c.subtype === '*'),
    );
    if (!match) continue;
    const s = current(reg);
    const etag = `"${s.etag}"`;
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const since = ims ? Date.parse(ims) : NaN;
    if (inm ? noneMatch(inm, s.etag) : since >= s.lastModified.getTime()) {
      // http.ServeContent's 304: the ETag, no Last-Modified beside it.
      res.writeHead(304, { Etag: etag });
      res.end();
      return;
    }
    const body = match[3] ? protobufOf(s) : s.json;
    res.writeHead(200, {
      Etag: etag,
      'Last-Modified': s.lastModified.toUTCString(),
      'Content-Type': match[2],
      'Content-Length': body.length,
    });
    res.end(body);
    return;
  }
  res.writeHead(406, { 'Content-Length': 0 });
  res.end();
}
