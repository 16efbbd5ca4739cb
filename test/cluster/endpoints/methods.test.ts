/**
 * Which methods an object's and a subresource's path serve: only the verbs its REST storage
 * implements have routes, and go-restful answers any other method with its own 405, before the
 * object is looked up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served, type Served } from '../http';

const NOT_ALLOWED = 'the server does not allow this method on the requested resource';
const POD = '/api/v1/namespaces/default/pods/p';

describe('methods of object and subresource paths', () => {
  let s: Served;
  before(async () => {
    s = await served();
    await s.call('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
  });
  after(() => s.close());

  const notAllowed = async (method: string, path: string) => {
    const r = await s.call(method, path, method === 'POST' ? {} : undefined);
    assert.equal(r.status, 405, `${method} ${path}: ${r.body}`);
    assert.equal((JSON.parse(r.body) as { message: string }).message, NOT_ALLOWED);
  };

  it('refuses DELETE of a status subresource, and leaves the object', async () => {
    await notAllowed('DELETE', `${POD}/status`);
    assert.equal((await s.get(POD)).status, 200);
  });

  it('refuses PUT and PATCH of a collection, as kube-apiserver does (differential error/405-method)', async () => {
    await notAllowed('PUT', '/api/v1/namespaces/default/configmaps');
    await notAllowed('PATCH', '/api/v1/namespaces/default/configmaps');
  });

  it('refuses POST to an object, and the methods each subresource lacks', async () => {
    await notAllowed('POST', POD);
    await notAllowed('POST', `${POD}/status`);
    await notAllowed('GET', `${POD}/eviction`);
    await notAllowed('GET', '/api/v1/namespaces/default/finalize');
    await notAllowed('DELETE', '/apis/apps/v1/namespaces/default/deployments/absent/scale');
    await notAllowed(
      'DELETE',
      '/apis/certificates.k8s.io/v1/certificatesigningrequests/absent/approval',
    );
  });
});
