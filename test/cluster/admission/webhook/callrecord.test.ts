/**
 * The webhook calls a served write makes are in its audit record: the webhook, its
 * configuration, what it was asked about, its verdict (allowed, denied with the refusal's code and
 * message, patched) or how the call failed and under which failurePolicy, and how long it took.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createCluster } from '../../../../src/cluster/builtins';
import type { Cluster } from '../../../../src/cluster/cluster';
import { startServer } from '../../../../src/cluster/endpoints/server';
import type { ServerHandle } from '../../../../src/cluster/endpoints/server';
import type { AuditEvent } from '../../../../src/cluster/endpoints/audit';
import type { KubeObject } from '../../../../src/cluster/apimachinery/types';
import { patchResponse, startWebhookServer } from './webhookserver';
import type { WebhookServer } from './webhookserver';

const ADMISSION = 'admissionregistration.k8s.io/v1';

describe('the audit record of webhook calls', () => {
  let cluster: Cluster;
  let server: ServerHandle;
  let hook: WebhookServer;

  before(async () => {
    hook = await startWebhookServer();
    cluster = createCluster({ controllers: false });
    server = await startServer({ cluster });
  });
  after(async () => {
    await server.close();
    cluster.close();
    await hook.close();
  });
  beforeEach(() => {
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])
      for (const c of [...cluster.scan({ apiVersion: ADMISSION, kind })])
        cluster.delete({ apiVersion: ADMISSION, kind }, { name: c.metadata.name! });
  });

  /** POSTs a ConfigMap and answers the audit record of that request. */
  function create(name: string): Promise<AuditEvent> {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    return new Promise((resolve, reject) => {
      const r = request(
        `${server.url}/api/v1/namespaces/default/configmaps`,
        {
          method: 'POST',
          ca: server.caPem,
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          // The record is complete once the response has ended on the server's side, which can
          // be a moment after the client has read it.
          const id = res.headers['audit-id'];
          const mine = (e: AuditEvent) => e.auditID === id && e.stage === 'ResponseComplete';
          const done = server.audit.events().find(mine);
          if (done) return resolve(done);
          const stop = server.audit.subscribe((e) => {
            if (!mine(e)) return;
            stop();
            resolve(e);
          });
        },
      );
      r.on('error', reject);
      r.end(body);
    });
  }

  function webhook(name: string, url: string, extra: Record<string, unknown> = {}) {
    return {
      name,
      clientConfig: { url, caBundle: hook.caBundle },
      rules: [
        { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
      ],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...extra,
    };
  }

  function install(kind: 'Mutating' | 'Validating', name: string, webhooks: unknown[]): void {
    cluster.create({
      apiVersion: ADMISSION,
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks,
    } as KubeObject);
  }

  it('records a mutating call that patched and a validating call that allowed, in call order', async () => {
    hook.handle('/stamp', () =>
      patchResponse([{ op: 'add', path: '/metadata/labels', value: { stamped: 'yes' } }]),
    );
    hook.handle('/allow', () => ({ allowed: true }));
    install('Mutating', 'stamper', [webhook('stamp.example.com', `${hook.url}/stamp`)]);
    install('Validating', 'checker', [webhook('check.example.com', `${hook.url}/allow`)]);
    const ev = await create('ok');
    assert.equal(ev.code, 201);
    const calls = ev.webhookCalls ?? [];
    assert.deepEqual(
      calls.map((c) => [c.kind, c.webhook, c.configuration, c.allowed, c.patched ?? false]),
      [
        ['mutating', 'stamp.example.com', 'stamper', true, true],
        ['validating', 'check.example.com', 'checker', true, false],
      ],
    );
    for (const c of calls) {
      assert.deepEqual(
        [c.operation, c.resource, c.namespace, c.name, c.ok],
        ['CREATE', 'configmaps', 'default', 'ok', true],
      );
      assert.ok(c.ms >= 0 && c.start >= ev.start && c.start <= ev.end!, JSON.stringify(c));
      assert.equal(c.error, undefined);
    }
  });

  it('records a denial with the code and message the write was refused with', async () => {
    hook.handle('/deny', () => ({
      allowed: false,
      status: { message: 'color must be blue', code: 422 },
    }));
    install('Validating', 'checker', [webhook('deny.example.com', `${hook.url}/deny`)]);
    const ev = await create('red');
    assert.equal(ev.code, 422);
    assert.deepEqual(ev.webhookCalls, [
      {
        kind: 'validating',
        webhook: 'deny.example.com',
        configuration: 'checker',
        operation: 'CREATE',
        resource: 'configmaps',
        namespace: 'default',
        name: 'red',
        start: ev.webhookCalls![0].start,
        ms: ev.webhookCalls![0].ms,
        ok: true,
        allowed: false,
        code: 422,
        message: 'admission webhook "deny.example.com" denied the request: color must be blue',
      },
    ]);
    assert.equal(ev.message, ev.webhookCalls![0].message);
  });

  it('records an unreachable webhook with its failurePolicy: Ignore lets the write through', async () => {
    install('Validating', 'gone', [
      webhook('gone.example.com', 'https://127.0.0.1:1/x', { failurePolicy: 'Ignore' }),
    ]);
    const ev = await create('through');
    assert.equal(ev.code, 201);
    const [c] = ev.webhookCalls ?? [];
    assert.equal(c.ok, false);
    assert.equal(c.allowed, undefined);
    assert.equal(c.failurePolicy, 'Ignore');
    assert.equal(c.timedOut, undefined);
    assert.match(c.error ?? '', /connect: connection refused$/);
  });

  it('records a time-out as one, and the refusal under Fail', async () => {
    hook.handle('/slow', () => new Promise((r) => setTimeout(() => r({ allowed: true }), 2500)));
    install('Validating', 'slow', [
      webhook('slow.example.com', `${hook.url}/slow`, { timeoutSeconds: 1 }),
    ]);
    const ev = await create('late');
    assert.equal(ev.code, 500);
    const [c] = ev.webhookCalls ?? [];
    assert.deepEqual([c.ok, c.timedOut, c.failurePolicy], [false, true, 'Fail'], JSON.stringify(c));
    assert.match(c.error ?? '', /context deadline exceeded$/);
  });
});
