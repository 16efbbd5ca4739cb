/**
 * The OpenAPI documents: the pinned release's own for built-in kinds, with CRDs' added, served
 * as kube-openapi serves them (hash links, 301 to the current hash, immutable caching).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openapiHash } from '../../../src/cluster/endpoints/openapi';
import { served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

interface V3Doc {
  info: { version: string };
  paths: Record<string, unknown>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

async function index(): Promise<Record<string, { serverRelativeURL: string }>> {
  const r = await s.get('/openapi/v3');
  assert.equal(r.status, 200);
  // As kube-apiserver sends it: no Content-Type set, so Go's sniffing says plain text.
  assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
  return (JSON.parse(r.body) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
}

describe('OpenAPI v3', () => {
  it('indexes every served group-version and no alpha or beta one', async () => {
    const paths = await index();
    for (const p of [
      'api/v1',
      'apis/apps/v1',
      'apis/batch/v1',
      'apis/admissionregistration.k8s.io/v1',
      'version',
    ])
      assert.ok(paths[p], p);
    assert.deepEqual(
      Object.keys(paths).filter((p) => /alpha|beta/.test(p)),
      [],
    );
  });

  it("serves batch/v1 with CronJob's schema, the hash its content's", async () => {
    const url = (await index())['apis/batch/v1'].serverRelativeURL;
    const r = await s.get(url);
    assert.equal(r.status, 200);
    assert.equal(url.split('hash=')[1], openapiHash(r.body));
    assert.equal(r.headers.etag, `"${openapiHash(r.body)}"`);
    assert.equal(r.headers['cache-control'], 'public, immutable');
    const doc = JSON.parse(r.body) as V3Doc;
    assert.ok(doc.paths['/apis/batch/v1/namespaces/{namespace}/cronjobs']);
    const spec = doc.components.schemas['io.k8s.api.batch.v1.CronJobSpec'];
    assert.ok(spec.properties?.schedule);
    const v = JSON.parse((await s.get('/version')).body) as { major: string; minor: string };
    assert.equal(doc.info.version, `${v.major}.${v.minor}`);
  });

  it('has the enums and leaves out the CBOR media types, as a default kube-apiserver', async () => {
    const r = await s.get('/openapi/v3/apis/batch/v1');
    const doc = JSON.parse(r.body) as V3Doc;
    const policy = doc.components.schemas['io.k8s.api.batch.v1.CronJobSpec'].properties!
      .concurrencyPolicy as { enum?: string[]; description: string };
    assert.deepEqual(policy.enum, ['Allow', 'Forbid', 'Replace']);
    assert.match(policy.description, /Possible enum values:/);
    assert.doesNotMatch(r.body, /application\/(apply-patch\+)?cbor/);
  });

  it('redirects a stale hash to the current one with 301', async () => {
    const r = await s.get('/openapi/v3/apis/apps/v1?hash=0123');
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, (await index())['apis/apps/v1'].serverRelativeURL);
  });

  it('answers 404 for a group-version not served', async () => {
    assert.equal((await s.get('/openapi/v3/apis/batch/v1beta1')).status, 404);
  });
});

describe('OpenAPI of a CRD', () => {
  it("adds the CRD's group-version to the v3 index and its schema to v2", async () => {
    const created = await s.call(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      {
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
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  },
                },
              },
            },
          ],
        },
      },
    );
    assert.equal(created.status, 201, created.body);
    for (let i = 0; i < 50 && !s.cluster.registry.forResource('example.com/v1', 'gadgets'); i++)
      await new Promise((r) => setTimeout(r, 20));
    const url = (await index())['apis/example.com/v1'].serverRelativeURL;
    const doc = JSON.parse((await s.get(url)).body) as V3Doc;
    assert.ok(doc.components.schemas['com.example.v1.Gadget'].properties?.spec);
    assert.ok((await index())['apis/batch/v1'], 'the release documents stay');
    const v2 = JSON.parse((await s.get('/openapi/v2')).body) as {
      definitions: Record<string, unknown>;
    };
    assert.ok(v2.definitions['com.example.v1.Gadget']);
    assert.ok(v2.definitions['io.k8s.api.batch.v1.CronJob']);
  });
});

describe('OpenAPI v2', () => {
  it('has the paths and definitions of every served kind, and no unserved version', async () => {
    const r = await s.get('/openapi/v2');
    const doc = JSON.parse(r.body) as {
      paths: Record<string, unknown>;
      definitions: Record<string, unknown>;
    };
    assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale']);
    assert.ok(doc.definitions['io.k8s.api.batch.v1.CronJob']);
    assert.ok(
      doc.definitions['io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration'],
    );
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => /\/v\d+(alpha|beta)\d+\//.test(p)),
      [],
    );
    assert.equal(doc.definitions['io.k8s.api.resource.v1alpha3.DeviceTaintRule'], undefined);
  });

  it('lists no CBOR media type and no parameter of an unserved path, as a default apiserver', async () => {
    const r = await s.get('/openapi/v2');
    assert.doesNotMatch(r.body, /application\/(apply-patch\+)?cbor/);
    const doc = JSON.parse(r.body) as { parameters: Record<string, unknown> };
    assert.ok(Object.keys(doc.parameters).some((n) => n.startsWith('pretty-')));
    assert.deepEqual(
      Object.keys(doc.parameters).filter((n) => n.startsWith('logpath')),
      [],
    );
  });
});
