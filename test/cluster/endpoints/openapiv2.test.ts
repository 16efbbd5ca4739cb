/**
 * /openapi/v2 as gnostic protobuf, what kubectl and client-go's discovery ask for: negotiated and
 * cached as kube-openapi's handler does, and judged by gnostic itself (tools/openapiv2pb
 * `compare`: proto.Unmarshal of the served bytes against ParseDocument of the served JSON),
 * a CRD's definition and paths included.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildOpenapiv2pb } from '../../../scripts/apigen-openapiv2pb.mjs';
import { openapiV2Text } from '../../../src/cluster/api/apidata';
import { openapiHash } from '../../../src/cluster/endpoints/openapi';
import { encodeOpenapiV2 } from '../../../src/cluster/endpoints/openapiv2pb';
import { goAvailable } from '../goconform';
import { served } from '../http';
import type { Served } from '../http';

const PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** What client-go's discovery sends (the deprecated name, answered with the current one). */
const CLIENT_GO = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const noGo = goAvailable() ? false : 'Go is not installed: gnostic is the judge';

let s: Served;
let dir: string;
before(async () => {
  s = await served();
  dir = mkdtempSync(join(tmpdir(), 'rs-openapiv2-'));
});
after(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** gnostic's verdict: "equal", or the differences (exit 1). */
function gnosticCompare(protobuf: Uint8Array, json: string): string {
  const file = join(dir, 'doc.json');
  writeFileSync(file, json);
  try {
    return execFileSync(buildOpenapiv2pb(), ['compare', file], {
      input: protobuf,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }).trim();
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

const GADGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
                  color: { type: 'string', enum: ['red', 'blue'], pattern: '^[a-z]+$' },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  ports: {
                    type: 'array',
                    maxItems: 4,
                    items: { type: 'integer', format: 'int32' },
                  },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('OpenAPI v2 as protobuf', () => {
  it('answers the Accept client-go sends with protobuf, under the JSON ETag', async () => {
    const json = await s.get('/openapi/v2', { accept: 'application/json' });
    const pb = await s.get('/openapi/v2', { accept: CLIENT_GO });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], PROTOBUF);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.equal(pb.headers.etag, `"${openapiHash(json.body)}"`);
    assert.equal(json.headers.etag, pb.headers.etag);
    assert.equal(pb.headers.vary, 'Accept');
    assert.ok(pb.headers['last-modified']);
    assert.equal(Number(pb.headers['content-length']), pb.bytes.length);
  });

  it('picks the first acceptable clause by quality, JSON for a wildcard or none', async () => {
    const type = async (accept?: string) =>
      (await s.get('/openapi/v2', accept === undefined ? {} : { accept })).headers['content-type'];
    assert.equal(await type(), 'application/json');
    assert.equal(await type('*/*'), 'application/json');
    assert.equal(await type(`application/json;q=0.5, ${PROTOBUF}`), PROTOBUF);
    assert.equal(await type(`${PROTOBUF};q=0.5, application/*`), 'application/json');
  });

  it('answers 406 with no body when nothing it serves is acceptable', async () => {
    const r = await s.get('/openapi/v2', { accept: 'text/plain' });
    assert.equal(r.status, 406);
    assert.equal(r.bytes.length, 0);
    assert.equal(r.headers.vary, 'Accept');
  });

  it('answers 304 to If-None-Match with the current ETag', async () => {
    const etag = (await s.get('/openapi/v2', { accept: PROTOBUF })).headers.etag!;
    const r = await s.get('/openapi/v2', { accept: PROTOBUF, 'if-none-match': etag });
    assert.equal(r.status, 304);
    assert.equal(r.headers.etag, etag);
    assert.equal(r.bytes.length, 0);
    const stale = await s.get('/openapi/v2', { accept: PROTOBUF, 'if-none-match': '"0123"' });
    assert.equal(stale.status, 200);
  });

  it('encodes the whole release document as gnostic decodes it', { skip: noGo }, () => {
    // Every construct of the release's document (parameters, responses, security, schemas):
    // the run-time encoder, held to ParseDocument.
    const text = openapiV2Text();
    assert.equal(
      gnosticCompare(encodeOpenapiV2(JSON.parse(text) as Record<string, unknown>), text),
      'equal',
    );
  });

  it("serves a CRD's definition and paths that decode as its JSON", { skip: noGo }, async () => {
    const before = await s.get('/openapi/v2', { accept: PROTOBUF });
    const created = await s.call(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      GADGET_CRD,
    );
    assert.equal(created.status, 201, created.body);
    for (let i = 0; i < 50 && !s.cluster.registry.forResource('example.com/v1', 'gadgets'); i++)
      await new Promise((r) => setTimeout(r, 20));
    const json = await s.get('/openapi/v2');
    const pb = await s.get('/openapi/v2', { accept: CLIENT_GO });
    assert.notEqual(pb.headers.etag, before.headers.etag);
    assert.equal(pb.headers.etag, `"${openapiHash(json.body)}"`);
    const doc = JSON.parse(json.body) as {
      info: { version: string };
      paths: Record<string, unknown>;
      definitions: Record<string, { properties?: Record<string, unknown> }>;
    };
    assert.ok(doc.definitions['com.example.v1.Gadget'].properties?.spec);
    assert.ok(doc.paths['/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}/status']);
    assert.match(doc.info.version, /^\d+\.\d+$/);
    assert.equal(gnosticCompare(pb.bytes, json.body), 'equal');
    // The judge can fail: the document without the CRD is not what these bytes say.
    assert.notEqual(gnosticCompare(before.bytes, json.body), 'equal');
  });
});
