import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../../src/cluster/cluster';
import { DEFAULT_USER } from '../../../../src/cluster/endpoints/server';
import type { ServerHandle } from '../../../../src/cluster/endpoints/server';
import type { KubeObject } from '../../../../src/cluster/apimachinery/types';
import { patchResponse, startWebhookServer } from './webhookserver';
import type { WebhookServer } from './webhookserver';
import { served, warningsOf } from '../../http';
import type { Served } from '../../http';

interface Answer {
  code: number;
  body: Record<string, unknown>;
  warnings: string[];
}

describe('admission webhooks over the served API', () => {
  let api: Served;
  let cluster: Cluster;
  let server: ServerHandle;
  let hook: WebhookServer;
  let svcHook: WebhookServer;

  before(async () => {
    hook = await startWebhookServer();
    svcHook = await startWebhookServer(['hook.system.svc']);
    api = await served(
      {},
      { webhookServices: new Map([['system/hook', `127.0.0.1:${svcHook.port}`]]) },
    );
    ({ cluster, server } = api);
  });
  after(async () => {
    await api.close();
    await hook.close();
    await svcHook.close();
  });
  beforeEach(() => {
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])
      for (const c of [...cluster.scan({ apiVersion: 'admissionregistration.k8s.io/v1', kind })])
        cluster.delete(
          { apiVersion: 'admissionregistration.k8s.io/v1', kind },
          { name: c.metadata.name! },
        );
    for (const c of [...cluster.scan({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default')])
      cluster.delete(
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: 'default', name: c.metadata.name! },
      );
    hook.received.length = 0;
    svcHook.received.length = 0;
  });

  async function call(method: string, path: string, body?: unknown, ct?: string): Promise<Answer> {
    const a = await api.call(method, path, body, ct ? { 'content-type': ct } : {});
    return {
      code: a.status,
      body: a.body ? (JSON.parse(a.body) as Record<string, unknown>) : {},
      warnings: warningsOf(a.headers),
    };
  }

  const configMap = (name: string, labels: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels },
    data: { a: '1' },
  });

  function webhook(name: string, path: string, extra: Record<string, unknown> = {}) {
    return {
      name,
      clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
      rules: [
        {
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['configmaps'],
        },
      ],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    };
  }

  function install(kind: 'Mutating' | 'Validating', name: string, webhooks: unknown[]): void {
    cluster.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks,
    } as KubeObject);
  }

  it('applies a mutating webhook JSON patch on create and sends the AdmissionReview the apiserver sends', async () => {
    hook.handle('/mutate', () => patchResponse([{ op: 'add', path: '/data/b', value: '2' }]));
    install('Mutating', 'm', [webhook('m.example.com', '/mutate')]);
    const res = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldManager=me',
      configMap('c1'),
    );
    assert.equal(res.code, 201);
    assert.deepEqual((res.body as { data: unknown }).data, { a: '1', b: '2' });
    assert.deepEqual(
      cluster.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'c1' })
        .data,
      { a: '1', b: '2' },
    );
    assert.equal(hook.received.length, 1);
    const r = hook.received[0].request;
    assert.equal(r.operation, 'CREATE');
    assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.equal(r.name, 'c1');
    assert.equal(r.namespace, 'default');
    assert.equal(r.dryRun, false);
    assert.equal(r.oldObject, null);
    assert.deepEqual(r.options, {
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      fieldManager: 'me',
    });
    assert.equal((r.userInfo as { username: string }).username, DEFAULT_USER);
    // Mutating admission runs before BeforeCreate: no uid nor creation time yet.
    const md = (r.object as KubeObject).metadata;
    assert.equal(md.uid, undefined);
    assert.equal(md.creationTimestamp, undefined);
  });

  it('stores a create a webhook patched with its resourceVersion, managedFields and key order', async () => {
    hook.handle('/mutate-md', () =>
      patchResponse([{ op: 'add', path: '/metadata/labels', value: { patched: 'yes' } }]),
    );
    install('Mutating', 'm', [webhook('m.example.com', '/mutate-md')]);
    const res = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldManager=me',
      configMap('c-md'),
    );
    assert.equal(res.code, 201);
    const stored = cluster.get(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'default', name: 'c-md' },
    );
    assert.ok(
      stored.metadata.resourceVersion,
      'the write sets resourceVersion on the patched metadata',
    );
    assert.equal(stored.metadata.managedFields?.[0]?.manager, 'me');
    assert.deepEqual(stored.metadata.labels, { patched: 'yes' });
    const keys = Object.keys(stored);
    assert.ok(
      keys.indexOf('metadata') < keys.indexOf('data'),
      `metadata before data: ${keys.join()}`,
    );
    assert.equal(
      (res.body as KubeObject).metadata.resourceVersion,
      stored.metadata.resourceVersion,
    );
  });

  it('refuses with the webhook denial as the apiserver words it, code from the result', async () => {
    hook.handle('/deny', () => ({
      allowed: false,
      status: { message: 'color must be blue', code: 403, reason: 'Forbidden' },
    }));
    hook.handle('/deny-bare', () => ({ allowed: false }));
    install('Validating', 'v', [webhook('deny.example.com', '/deny')]);
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(res.code, 403);
    assert.equal(
      res.body.message,
      'admission webhook "deny.example.com" denied the request: color must be blue',
    );
    assert.equal(res.body.reason, 'Forbidden');
    install('Validating', 'w', [webhook('bare.example.com', '/deny-bare')]);
    cluster.delete(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
      { name: 'v' },
    );
    const bare = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c2'));
    assert.equal(bare.code, 400);
    assert.equal(
      bare.body.message,
      'admission webhook "bare.example.com" denied the request without explanation',
    );
    assert.equal(
      cluster.peek({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'c2' }),
      undefined,
    );
  });

  it('fails closed on an unreachable webhook with the apiserver message, and open under Ignore', async () => {
    const dead = `https://127.0.0.1:1/validate`;
    install('Validating', 'v', [
      {
        ...webhook('dead.example.com', '/x'),
        clientConfig: { url: dead, caBundle: hook.caBundle },
      },
    ]);
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(res.code, 500);
    assert.equal(res.body.reason, 'InternalError');
    assert.equal(
      res.body.message,
      'Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused',
    );
    cluster.delete(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
      { name: 'v' },
    );
    install('Validating', 'v', [
      {
        ...webhook('dead.example.com', '/x'),
        failurePolicy: 'Ignore',
        clientConfig: { url: dead, caBundle: hook.caBundle },
      },
    ]);
    const ignored = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(ignored.code, 201);
    const ev = server.audit
      .events()
      .filter((e) => e.verb === 'create' && e.resource === 'configmaps')
      .at(-1)!;
    assert.equal(
      ev.annotations?.['failed-open.validating.webhook.admission.k8s.io/round_0_index_0'],
      'dead.example.com',
    );
  });

  it('words a time-out and an unknown certificate authority as the apiserver does', async () => {
    hook.handle('/slow', () => new Promise((r) => setTimeout(() => r({ allowed: true }), 2500)));
    install('Validating', 'v', [{ ...webhook('slow.example.com', '/slow'), timeoutSeconds: 1 }]);
    const slow = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(slow.code, 500);
    assert.equal(
      slow.body.message,
      `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${hook.url}/slow?timeout=1s": context deadline exceeded`,
    );
    cluster.delete(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
      { name: 'v' },
    );
    install('Validating', 'v', [
      { ...webhook('ca.example.com', '/ok'), clientConfig: { url: `${hook.url}/ok` } },
    ]);
    const untrusted = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c2'));
    assert.equal(
      untrusted.body.message,
      `Internal error occurred: failed calling webhook "ca.example.com": failed to call webhook: Post "${hook.url}/ok?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
  });

  it('refuses a dry run to a webhook with side effects, and sends dryRun to one without', async () => {
    install('Validating', 'v', [{ ...webhook('fx.example.com', '/ok'), sideEffects: 'Unknown' }]);
    const res = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?dryRun=All',
      configMap('c1'),
    );
    assert.equal(res.code, 400);
    assert.equal(res.body.reason, 'BadRequest');
    assert.equal(res.body.message, 'admission webhook "fx.example.com" does not support dry run');
    assert.equal(hook.received.length, 0);
    cluster.delete(
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' },
      { name: 'v' },
    );
    install('Validating', 'v', [webhook('nofx.example.com', '/ok')]);
    const ok = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps?dryRun=All',
      configMap('c1'),
    );
    assert.equal(ok.code, 201);
    assert.equal(hook.received[0].request.dryRun, true);
  });

  it('skips webhooks whose selectors, matchConditions or scope do not match', async () => {
    install('Validating', 'v', [
      {
        ...webhook('objsel.example.com', '/ok'),
        objectSelector: { matchLabels: { hooked: 'yes' } },
      },
      { ...webhook('nssel.example.com', '/ok'), namespaceSelector: { matchLabels: { team: 'x' } } },
      {
        ...webhook('cond.example.com', '/ok'),
        matchConditions: [{ name: 'named', expression: "object.metadata.name == 'c2'" }],
      },
      {
        ...webhook('cluster.example.com', '/ok'),
        rules: [
          {
            operations: ['*'],
            apiGroups: ['*'],
            apiVersions: ['*'],
            resources: ['*'],
            scope: 'Cluster',
          },
        ],
      },
    ]);
    await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(hook.received.length, 0);
    await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c2', { hooked: 'yes' }));
    // objectSelector and matchConditions now match; default has no team label.
    assert.deepEqual(
      hook.received.map((r) => r.request.name),
      ['c2', 'c2'],
    );
  });

  it('fails closed when a matchCondition errs under Fail, with the dispatcher 403', async () => {
    install('Validating', 'v', [
      {
        ...webhook('err.example.com', '/ok'),
        matchConditions: [{ name: 'bad', expression: 'object.nope == 1' }],
      },
    ]);
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(res.code, 403);
    assert.match(
      String(res.body.message),
      /^configmaps "c1" is forbidden: expression 'object.nope == 1' resulted in error: /,
    );
  });

  it('matches */status rules on the status subresource only', async () => {
    cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1' } });
    install('Validating', 'v', [
      {
        ...webhook('status.example.com', '/ok'),
        rules: [
          { operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/status'] },
        ],
      },
    ]);
    await call(
      'PATCH',
      '/api/v1/namespaces/ns1',
      { metadata: { labels: { a: 'b' } } },
      'application/merge-patch+json',
    );
    assert.equal(hook.received.length, 0);
    const res = await call(
      'PATCH',
      '/api/v1/namespaces/ns1/status',
      { status: { conditions: [] }, metadata: { labels: { x: 'y' } } },
      'application/merge-patch+json',
    );
    assert.equal(res.code, 200);
    assert.equal(hook.received.length, 1);
    assert.equal(hook.received[0].request.subResource, 'status');
    assert.equal(hook.received[0].request.operation, 'UPDATE');
  });

  it('reinvokes an IfNeeded webhook once a later webhook changed the object', async () => {
    let first = 0;
    hook.handle('/first', () => {
      first++;
      return { allowed: true };
    });
    hook.handle('/second', () =>
      patchResponse([{ op: 'add', path: '/data/second', value: 'yes' }]),
    );
    install('Mutating', 'a', [
      { ...webhook('first.example.com', '/first'), reinvocationPolicy: 'IfNeeded' },
    ]);
    install('Mutating', 'b', [webhook('second.example.com', '/second')]);
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(res.code, 201);
    assert.equal(first, 2);
    // The second call saw the second webhook's change.
    const seen = hook.received
      .filter((r) => r.path === '/first')
      .map((r) => (r.request.object as { data: unknown }).data);
    assert.deepEqual(seen, [{ a: '1' }, { a: '1', second: 'yes' }]);
  });

  it('passes warnings as Warning headers and sends DELETE with the old object only', async () => {
    hook.handle('/warn', () => ({ allowed: true, warnings: ['mind the gap'] }));
    install('Validating', 'v', [webhook('warn.example.com', '/warn')]);
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.deepEqual(res.warnings, ['mind the gap']);
    const del = await call('DELETE', '/api/v1/namespaces/default/configmaps/c1');
    assert.equal(del.code, 200);
    const r = hook.received.at(-1)!.request;
    assert.equal(r.operation, 'DELETE');
    assert.equal(r.object, null);
    assert.equal((r.oldObject as KubeObject).metadata.name, 'c1');
    assert.equal((r.options as { kind: string }).kind, 'DeleteOptions');
  });

  it('resolves clientConfig.service through the --webhook-service mapping with the Service TLS name', async () => {
    svcHook.handle('/svc', () => patchResponse([{ op: 'add', path: '/data/svc', value: 'on' }]));
    install('Mutating', 'm', [
      {
        ...webhook('svc.example.com', '/unused'),
        clientConfig: {
          service: { namespace: 'system', name: 'hook', path: '/svc' },
          caBundle: svcHook.caBundle,
        },
      },
    ]);
    const res = await call('POST', '/api/v1/namespaces/default/configmaps', configMap('c1'));
    assert.equal(res.code, 201);
    assert.equal((res.body as { data: Record<string, string> }).data.svc, 'on');
  });

  it('calls no webhook for in-process writes (they cannot wait for one)', () => {
    install('Validating', 'v', [webhook('deny.example.com', '/deny-all')]);
    hook.handle('/deny-all', () => ({ allowed: false }));
    cluster.create(configMap('c9'));
    assert.equal(hook.received.length, 0);
  });
});
