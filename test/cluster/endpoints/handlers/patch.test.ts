/**
 * What a PATCH or a write with a Content-Type the API does not take answers, as kube-apiserver
 * 1.36 answers it: go-restful's own 415 for a built-in's PATCH route, the handlers' 415 naming
 * what they accept (and not what they got) elsewhere.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { served, type Served } from '../../http';
import { widget, widgetCrd } from '../../helpers';

let s: Served;
before(async () => {
  s = await served();
  s.cluster.create(widgetCrd());
  s.cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  s.cluster.create(widget('w'));
});
after(() => s.close());

const statusOf = (body: string) => JSON.parse(body) as Record<string, unknown>;

test("a built-in's PATCH with no patch type is go-restful's 415, details empty", async () => {
  for (const ct of ['text/plain', 'application/json']) {
    const a = await s.call('PATCH', '/api/v1/namespaces/default/configmaps/c', '{}', {
      'content-type': ct,
    });
    assert.equal(a.status, 415);
    const st = statusOf(a.body);
    assert.equal(st.message, '415: Unsupported Media Type');
    assert.equal(st.reason, 'UnsupportedMediaType');
    assert.deepEqual(st.details, {});
  }
});

test("a custom resource's PATCH names the patch types its handler accepts", async () => {
  const a = await s.call('PATCH', '/apis/example.com/v1/namespaces/default/widgets/w', '{}', {
    'content-type': 'text/plain',
  });
  assert.equal(a.status, 415);
  assert.equal(
    statusOf(a.body).message,
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
});

test('a create in a media type the API does not speak names those it does, not the one sent', async () => {
  const a = await s.call('POST', '/api/v1/namespaces/default/configmaps', 'x', {
    'content-type': 'text/plain',
  });
  assert.equal(a.status, 415);
  assert.equal(
    statusOf(a.body).message,
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
});
