/**
 * How the served cluster reads a request body: whole whether it declares its length or comes in
 * chunks, and refused past MAX_BODY_BYTES either way (kube-apiserver's 3 MiB limit).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_BODY_BYTES } from '../../../src/cluster/endpoints/server';
import { CM } from '../helpers';
import { Chunked, served, type Answer, type Served } from '../http';

describe('served cluster: request bodies', () => {
  let s: Served;
  before(async () => {
    s = await served();
  });
  after(() => s.close());

  /** A POST of `body` written in pieces of `piece` bytes, with no Content-Length (chunked). */
  const postChunked = (path: string, body: Buffer, piece: number): Promise<Answer> => {
    const pieces: Buffer[] = [];
    for (let i = 0; i < body.length; i += piece) pieces.push(body.subarray(i, i + piece));
    return s.call('POST', path, new Chunked(pieces));
  };

  const configMap = (name: string, value: string) =>
    Buffer.from(
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } }),
    );

  it('reads a chunked body of many pieces whole, multi-byte characters split across them', async () => {
    const value = 'añb€'.repeat(40_000); // ~280 KB: the body's buffer grows several times
    const r = await postChunked(
      '/api/v1/namespaces/default/configmaps',
      configMap('chunked', value),
      4093,
    );
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(s.cluster.get(CM, { namespace: 'default', name: 'chunked' }).data, { value });
  });

  it('reads a body that declares its length whole', async () => {
    const value = 'añb€'.repeat(40_000);
    const r = await s.call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap('declared', value).toString(),
    );
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(s.cluster.get(CM, { namespace: 'default', name: 'declared' }).data, { value });
  });

  it('refuses a chunked body that grows past the limit with a 413, and stores nothing', async () => {
    const r = await postChunked(
      '/api/v1/namespaces/default/configmaps',
      configMap('huge', 'x'.repeat(MAX_BODY_BYTES)),
      64 * 1024,
    );
    assert.equal(r.status, 413);
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      `Request entity too large: limit is ${MAX_BODY_BYTES}`,
    );
    assert.equal(s.cluster.peek(CM, { namespace: 'default', name: 'huge' }), undefined);
  });

  it('refuses a body that declares more than the limit with a 413', async () => {
    const r = await s.call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      configMap('declared-huge', 'x'.repeat(MAX_BODY_BYTES)).toString(),
    );
    assert.equal(r.status, 413);
  });
});

describe('served cluster: warnings on an error answer', () => {
  let s: Served;
  before(async () => {
    s = await served();
  });
  after(() => s.close());

  it('a body refused as invalid under fieldValidation=Warn still names its unknown fields', async () => {
    const r = await s.call(
      'POST',
      '/apis/apps/v1/namespaces/default/deployments?fieldValidation=Warn',
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd' },
        unknownField: 1,
      }),
    );
    assert.equal(r.status, 422, r.body);
    assert.equal(r.headers.warning, '299 - "unknown field \\"unknownField\\""');
  });
});
