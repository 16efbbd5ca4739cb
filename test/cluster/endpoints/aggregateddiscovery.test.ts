/**
 * Aggregated discovery (apidiscovery.k8s.io/v2) over HTTP, as client-go asks for it and
 * kube-apiserver answers it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served } from '../http';
import type { Served } from '../http';

const CLIENT_GO_DISCOVERY =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

interface DiscoveredResource {
  resource: string;
  responseKind: object;
  scope: string;
  singularResource: string;
  subresources: { subresource: string }[];
}

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

describe('aggregated discovery', () => {
  it('answers /apis with an APIGroupDiscoveryList when client-go asks for one', async () => {
    const r = await s.get('/apis', { accept: CLIENT_GO_DISCOVERY });
    assert.equal(r.status, 200);
    assert.equal(
      r.headers['content-type'],
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    assert.equal(r.headers.vary, 'Accept');
    const doc = JSON.parse(r.body) as {
      kind: string;
      apiVersion: string;
      items: {
        metadata: { name?: string };
        versions: { version: string; resources: DiscoveredResource[] }[];
      }[];
    };
    assert.equal(doc.kind, 'APIGroupDiscoveryList');
    assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
    const apps = doc.items.find((g) => g.metadata.name === 'apps');
    assert.ok(apps, 'the apps group is listed');
    const deployments = apps.versions[0].resources.find((r) => r.resource === 'deployments');
    // kube-apiserver leaves the group and version of a resource's own kind empty (the release's
    // api/discovery/aggregated_v2.json); a subresource of another kind names them.
    assert.deepEqual(deployments!.responseKind, { group: '', version: '', kind: 'Deployment' });
    assert.equal(deployments!.scope, 'Namespaced');
    assert.equal(deployments!.singularResource, 'deployment');
    assert.deepEqual(deployments!.subresources.map((s) => s.subresource).sort(), [
      'scale',
      'status',
    ]);
    assert.ok(doc.items.some((g) => g.metadata.name === 'coordination.k8s.io'));
    assert.ok(!doc.items.some((g) => !g.metadata.name), 'the core group is only under /api');
  });

  it('answers /api with the core group alone, and 304 to a matching If-None-Match', async () => {
    const r = await s.get('/api', { accept: CLIENT_GO_DISCOVERY });
    const doc = JSON.parse(r.body) as {
      items: {
        metadata: { name?: string };
        versions: { version: string; resources: DiscoveredResource[] }[];
      }[];
    };
    assert.equal(doc.items.length, 1);
    assert.equal(doc.items[0].metadata.name, undefined);
    assert.equal(doc.items[0].versions[0].version, 'v1');
    const ns = doc.items[0].versions[0].resources.find((x) => x.resource === 'namespaces');
    assert.equal(ns!.scope, 'Cluster');
    const again = await s.get('/api', {
      accept: CLIENT_GO_DISCOVERY,
      'if-none-match': String(r.headers.etag),
    });
    assert.equal(again.status, 304);
  });

  it('keeps the legacy documents for plain JSON', async () => {
    const apis = JSON.parse((await s.get('/apis', { accept: 'application/json' })).body) as {
      kind: string;
    };
    assert.equal(apis.kind, 'APIGroupList');
    const api = JSON.parse((await s.get('/api')).body) as { kind: string };
    assert.equal(api.kind, 'APIVersions');
  });
});
