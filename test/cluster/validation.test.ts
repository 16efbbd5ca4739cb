/**
 * Validation real clusters enforce, over HTTP as clients send it: immutable ConfigMaps and
 * Secrets, ConfigMap and Secret key names, the keys a `kubernetes.io/tls` Secret needs, Secret
 * data that is not base64, a create carrying a resourceVersion (the Python client's
 * `create_namespaced_config_map` of an object read back), unknown `dryRun` values, and the
 * PatchOptions rules of server-side apply (`fieldManager` required, `force` only there).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { served } from './http';
import type { Served } from './http';

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const CMS = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';
const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  ...extra,
});
const secret = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name },
  ...extra,
});

async function failure(
  r: Promise<{ status: number; body: string }>,
  code: number,
): Promise<{ message: string; reason: string }> {
  const a = await r;
  assert.equal(a.status, code, a.body);
  return JSON.parse(a.body) as { message: string; reason: string };
}

describe('immutable ConfigMaps and Secrets', () => {
  it('refuse changes to data, and to immutable itself', async () => {
    assert.equal(
      (await s.call('POST', CMS, cm('frozen', { immutable: true, data: { a: '1' } }))).status,
      201,
    );
    const st = await failure(
      s.call('PUT', `${CMS}/frozen`, cm('frozen', { immutable: false, data: { a: '2' } })),
      422,
    );
    assert.equal(
      st.message,
      'ConfigMap "frozen" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]',
    );
    // Metadata may still change.
    const ok = await s.call(
      'PUT',
      `${CMS}/frozen`,
      cm('frozen', {
        immutable: true,
        data: { a: '1' },
        metadata: { name: 'frozen', labels: { x: 'y' } },
      }),
    );
    assert.equal(ok.status, 200, ok.body);
    assert.equal(
      (await s.call('POST', SECRETS, secret('sfrozen', { immutable: true, data: { a: 'MQ==' } })))
        .status,
      201,
    );
    const sst = await failure(
      s.call(
        'PUT',
        `${SECRETS}/sfrozen`,
        secret('sfrozen', { immutable: true, data: { a: 'Mg==' } }),
      ),
      422,
    );
    assert.equal(
      sst.message,
      'Secret "sfrozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
  });

  it('a Secret’s type may not change', async () => {
    await s.call('POST', SECRETS, secret('typed', { data: {} }));
    const st = await failure(
      s.call('PUT', `${SECRETS}/typed`, secret('typed', { type: 'example.com/other' })),
      422,
    );
    assert.equal(
      st.message,
      'Secret "typed" is invalid: type: Invalid value: "example.com/other": field is immutable',
    );
  });
});

describe('keys', () => {
  it('refuses ConfigMap and Secret keys that are not config keys', async () => {
    const st = await failure(
      s.call('POST', CMS, cm('badkey', { data: { 'a/b': 'x', '..c': 'y' } })),
      422,
    );
    assert.equal(
      st.message,
      `ConfigMap "badkey" is invalid: [data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), data[..c]: Invalid value: "..c": must not start with '..']`,
    );
    const sst = await failure(
      s.call('POST', SECRETS, secret('badkey', { stringData: { 'a b': 'x' } })),
      422,
    );
    assert.match(
      sst.message,
      /^Secret "badkey" is invalid: data\[a b\]: Invalid value: "a b": a valid config key/,
    );
  });

  it('a kubernetes.io/tls Secret needs tls.crt and tls.key', async () => {
    const st = await failure(
      s.call(
        'POST',
        SECRETS,
        secret('tls', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'c' } }),
      ),
      422,
    );
    assert.equal(st.message, 'Secret "tls" is invalid: data[tls.key]: Required value');
    const ok = await s.call(
      'POST',
      SECRETS,
      secret('tls', { type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'c', 'tls.key': 'k' } }),
    );
    assert.equal(ok.status, 201, ok.body);
  });

  it('Secret data that is not base64 is a 400', async () => {
    const st = await failure(
      s.call('POST', SECRETS, secret('b64', { data: { a: 'not base64!' } })),
      400,
    );
    assert.match(st.message, /illegal base64 data at input byte 3/);
  });
});

describe('request options', () => {
  it('a create carrying a resourceVersion is refused as the storage refuses it', async () => {
    const st = await failure(
      s.call('POST', CMS, { ...cm('rv'), metadata: { name: 'rv', resourceVersion: '42' } }),
      500,
    );
    assert.equal(st.message, 'resourceVersion should not be set on objects to be created');
    assert.equal(st.reason, undefined, 'an empty reason is omitted, as omitempty does');
  });

  it('a dry-run create carrying a resourceVersion answers the object with it, as the dry-run storage does', async () => {
    const res = await s.call('POST', `${CMS}?dryRun=All`, {
      ...cm('rv-dry'),
      metadata: { name: 'rv-dry', resourceVersion: '42' },
    });
    assert.equal(res.status, 201);
    const body = JSON.parse(res.body) as { metadata: { resourceVersion?: string; uid?: string } };
    assert.equal(body.metadata.resourceVersion, '42');
    assert.ok(body.metadata.uid);
    assert.equal((await s.call('GET', `${CMS}/rv-dry`)).status, 404, 'nothing was stored');
  });

  it('a write naming no field manager and sending no User-Agent is recorded as manager "unknown"', async () => {
    const res = await s.call('POST', CMS, { ...cm('no-ua'), data: { a: 'b' } });
    assert.equal(res.status, 201);
    const managed = JSON.parse(res.body).metadata.managedFields as Array<Record<string, unknown>>;
    assert.deepEqual(
      managed.map((e) => [e.manager, e.operation]),
      [['unknown', 'Update']],
    );
  });

  it('dryRun other than All is a 422 on the options kind', async () => {
    const st = await failure(s.call('POST', `${CMS}?dryRun=true`, cm('dry')), 422);
    assert.equal(
      st.message,
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["true"]: supported values: "All"',
    );
    const del = await failure(s.call('DELETE', `${CMS}/dry?dryRun=Server`), 422);
    assert.match(
      del.message,
      /^DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value/,
    );
  });

  it('fieldValidation other than Ignore, Warn or Strict is a 422 on the options kind', async () => {
    const st = await failure(s.call('POST', `${CMS}?fieldValidation=Loud`, cm('loud')), 422);
    assert.equal(
      st.message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
    );
    assert.equal((await s.call('GET', `${CMS}/loud`)).status, 404, 'nothing was stored');
  });

  it('a propagationPolicy that is not one of the three is a 422 on DeleteOptions', async () => {
    await s.call('POST', CMS, cm('gc'));
    const st = await failure(s.call('DELETE', `${CMS}/gc?propagationPolicy=Sideways`), 422);
    assert.equal(
      st.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await failure(
      s.call('DELETE', `${CMS}/gc?propagationPolicy=Background&orphanDependents=false`),
      422,
    );
    assert.equal(
      both.message,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
    );
  });

  it('server-side apply needs a fieldManager; force is for apply only', async () => {
    const APPLY = { 'content-type': 'application/apply-patch+yaml' };
    const doc = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n';
    const st = await failure(s.call('PATCH', `${CMS}/ssa`, doc, APPLY), 422);
    assert.equal(
      st.message,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    await s.call('POST', CMS, cm('merge'));
    const forced = await failure(
      s.call('PATCH', `${CMS}/merge?force=true`, '{"data":{"a":"b"}}', {
        'content-type': 'application/merge-patch+json',
      }),
      422,
    );
    assert.equal(
      forced.message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });
});
