/**
 * The editor's "Connect to Cluster Context" path, without the editor: KubeconfigSource (plain
 * @kubernetes/client-node) against `reconcile-studio serve` with the sample's manifests. It must
 * list the CRD kinds, stream the WebApps as watch events, and refuse writes when read-only.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WatchEvent } from '../../src/cluster/apimachinery/types';
import { KubeconfigSource, kubeconfigContexts } from '../../src/vscode/kubeconfigsource';
import { OWNED_KINDS, typeOfKind } from '../../src/vscode/model/source';
import { ROOT, serve, type Served } from './serve';

describe('KubeconfigSource against the served fake cluster', { timeout: 60_000 }, () => {
  let served: Served;

  before(async () => {
    served = await serve(['--manifests', join(ROOT, 'samples/quota-operator/config')]);
  });

  after(async () => {
    await served?.stop();
  });

  it('offers the kubeconfig written by serve as a context', () => {
    const { current, contexts } = kubeconfigContexts(served.kubeconfig);
    assert.ok(current);
    assert.deepEqual(contexts, [current]);
  });

  it('lists the CRD kinds and streams the custom resources and their owned objects', async () => {
    const { current } = kubeconfigContexts(served.kubeconfig);
    const source = new KubeconfigSource(current, true, served.kubeconfig);
    try {
      const kinds = await source.customKinds();
      assert.deepEqual(
        kinds.map((k) => `${k.kind}.${k.group}/${k.version}`),
        ['WebApp.apps.example.com/v1'],
      );
      const seen = new Map<string, WatchEvent['type']>();
      const errors: unknown[] = [];
      const stop = source.watch(
        [...kinds.map(typeOfKind), ...OWNED_KINDS],
        (ev) => seen.set(`${ev.object.kind}/${ev.object.metadata.name}`, ev.type),
        (err) => errors.push(err),
      );
      const deadline = Date.now() + 20_000;
      while (!(seen.has('WebApp/shop') && seen.has('WebApp/blog')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      stop();
      assert.deepEqual(errors, []);
      assert.equal(seen.get('WebApp/shop'), 'ADDED');
      assert.equal(seen.get('WebApp/blog'), 'ADDED');
    } finally {
      source.dispose();
    }
  });

  it('refuses to write to a read-only context and says how to allow it', async () => {
    const { current } = kubeconfigContexts(served.kubeconfig);
    const source = new KubeconfigSource(current, true, served.kubeconfig);
    await assert.rejects(
      source.delete({ apiVersion: 'apps.example.com/v1', kind: 'WebApp' }, 'default', 'shop'),
      /read-only in Reconcile Studio.*allowWrites/,
    );
    const still = await source.get(
      { apiVersion: 'apps.example.com/v1', kind: 'WebApp' },
      'default',
      'shop',
    );
    assert.equal(still.metadata.name, 'shop');
    source.dispose();
  });

  it('applies edited YAML with server-side apply when writes are allowed, and refuses a stale one', async () => {
    const { current } = kubeconfigContexts(served.kubeconfig);
    const source = new KubeconfigSource(current, false, served.kubeconfig);
    try {
      const T = { apiVersion: 'apps.example.com/v1', kind: 'WebApp' };
      const live = await source.get(T, 'default', 'blog');
      const edited = { ...live, spec: { ...(live.spec as object), replicas: 2 } };
      const saved = await source.apply(edited);
      assert.equal((saved.spec as { replicas: number }).replicas, 2);
      assert.ok(saved.metadata.managedFields?.some((m) => m.manager === 'reconcile-studio'));
      // The same YAML again carries the old resourceVersion: someone (we) changed the object since.
      await assert.rejects(source.apply(edited), (e: unknown) =>
        /has been modified/.test(
          String((e as Error).message ?? e) + JSON.stringify((e as { body?: unknown }).body ?? ''),
        ),
      );
    } finally {
      source.dispose();
    }
  });
});
