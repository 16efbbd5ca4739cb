/**
 * The TypeScript reconciler's in-process writes meet the cluster's admission webhooks (through
 * WebhookApiServer, as the editor runs it): a mutating webhook's patch is stored, a validating
 * webhook's denial refuses the write with the apiserver's words, and the reconcile's trace keeps
 * the calls on the write's ApiCall. Without a webhook configuration a write stays synchronous.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import type { KubeObject } from '../../src/cluster/apimachinery/types';
import { isPromise } from '../../src/runtime/apiserver';
import { Manager } from '../../src/runtime/manager';
import type { ReconcileTrace } from '../../src/runtime/trace';
import { WebhookApiServer, webhookCallsOf } from '../../src/runtime/webhookapiserver';
import { patchResponse, startWebhookServer } from '../cluster/admission/webhook/webhookserver';
import type { WebhookServer } from '../cluster/admission/webhook/webhookserver';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const ADMISSION = 'admissionregistration.k8s.io/v1';

describe('in-process writes through WebhookApiServer', () => {
  let hook: WebhookServer;
  let cluster: Cluster;
  let api: WebhookApiServer;

  before(async () => {
    hook = await startWebhookServer();
    hook.handle('/stamp', () =>
      patchResponse([{ op: 'add', path: '/metadata/labels', value: { stamped: 'yes' } }]),
    );
    hook.handle('/censor', (r) =>
      (r.object as KubeObject).metadata.name === 'rude'
        ? { allowed: false, status: { code: 403, message: 'no rude replies' } }
        : { allowed: true },
    );
    cluster = createCluster({ controllers: false });
    api = new WebhookApiServer(cluster);
  });
  after(async () => {
    cluster.close();
    await hook.close();
  });

  const configMap = (name: string): KubeObject => ({
    ...CM,
    metadata: { name, namespace: 'default' },
    data: { a: '1' },
  });

  function install(kind: 'Mutating' | 'Validating', path: string): void {
    cluster.create({
      apiVersion: ADMISSION,
      kind: `${kind}WebhookConfiguration`,
      metadata: { name: `${kind.toLowerCase()}-config` },
      webhooks: [
        {
          name: `${kind.toLowerCase()}.example.com`,
          clientConfig: { url: `${hook.url}${path}`, caBundle: hook.caBundle },
          rules: [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
            },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    } as KubeObject);
  }

  it('writes synchronously, calling nothing, while no webhook configuration is stored', () => {
    const out = api.create(configMap('plain'));
    assert.ok(!isPromise(out));
    assert.equal(hook.received.length, 0);
  });

  it('stores what a mutating webhook patched and refuses what a validating one denies', async () => {
    install('Mutating', '/stamp');
    install('Validating', '/censor');
    const ok = api.create(configMap('kind'));
    assert.ok(isPromise(ok));
    assert.deepEqual((await ok).metadata.labels, { stamped: 'yes' });
    assert.deepEqual(
      webhookCallsOf(ok)?.map((c) => [c.kind, c.webhook, c.allowed, c.patched ?? false]),
      [
        ['mutating', 'mutating.example.com', true, true],
        ['validating', 'validating.example.com', true, false],
      ],
    );
    const rude = api.create(configMap('rude'));
    assert.ok(isPromise(rude));
    await assert.rejects(rude, {
      message: 'admission webhook "validating.example.com" denied the request: no rude replies',
    });
    assert.equal(cluster.peek(CM, { namespace: 'default', name: 'rude' }), undefined);
    const denial = webhookCallsOf(rude)?.at(-1);
    assert.deepEqual([denial?.allowed, denial?.code], [false, 403]);
    // The review names the in-process runtime as the writer.
    const sent = hook.received.at(-1)!.request;
    assert.equal((sent.userInfo as { username: string }).username, 'reconcile-studio');
  });

  it("puts the calls on the reconcile's write, where the debugger shows them", async () => {
    const mgr = new Manager({ api });
    const done = new Promise<ReconcileTrace>((resolve) =>
      mgr.on('reconcileEnd', (t: ReconcileTrace) => {
        if (t.request.name === 'greeting') resolve(t);
      }),
    );
    mgr.addReconciler({ for: CM }, async (ctx, req) => {
      if (req.name !== 'greeting') return {};
      await ctx.client.create(configMap('rude'));
      return {};
    });
    cluster.create(configMap('greeting'));
    mgr.start();
    try {
      const t = await done;
      const write = t.calls.find((c) => c.verb === 'create');
      assert.equal(write?.code, 403);
      assert.deepEqual(
        write?.webhooks?.map((c) => [c.kind, c.allowed]),
        [
          ['mutating', true],
          ['validating', false],
        ],
      );
    } finally {
      mgr.stop();
    }
  });
});
