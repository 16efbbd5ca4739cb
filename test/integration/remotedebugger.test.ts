/**
 * The editor's "run a reconciler against a kubeconfig context" path without the editor: the
 * sample reconciler, loaded as the extension loads it, runs through KubeconfigSource.remoteApi()
 * (client-node, real clock) against `reconcile-studio serve`, and the debugger model shows it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadReconciler, type LoadedReconciler } from '../../src/runtime/loader';
import { Manager } from '../../src/runtime/manager';
import { KubeconfigSource, kubeconfigContexts } from '../../src/vscode/kubeconfigsource';
import { DebuggerModel, NO_EVENTS } from '../../src/vscode/model/debuggermodel';
import { ROOT, serve, type Served } from './serve';

const SAMPLE = join(ROOT, 'samples/quota-operator');

describe('a reconciler run against a kubeconfig context', { timeout: 90_000 }, () => {
  let served: Served;
  let loaded: LoadedReconciler;

  before(async () => {
    served = await serve(['--manifests', join(SAMPLE, 'config')]);
    loaded = await loadReconciler(join(SAMPLE, 'reconcilers/webapp.reconciler.ts'), {
      isolate: false,
    });
  });

  after(async () => {
    await loaded?.dispose();
    await served?.stop();
  });

  it('creates the Deployments through the API server and the debugger shows the calls and the result', async () => {
    const { current } = kubeconfigContexts(served.kubeconfig);
    const source = new KubeconfigSource(current, false, served.kubeconfig);
    const manager = new Manager({ api: await source.remoteApi!() });
    manager.addReconciler(loaded.definition, loaded.reconcile);
    const model = new DebuggerModel(
      manager,
      NO_EVENTS,
      loaded.definition.for,
      'webapp.reconciler.ts',
    );
    manager.on('reconcileEnd', (t) => model.onReconcileEnd(t));
    manager.start();
    try {
      const deadline = Date.now() + 30_000;
      const created = () =>
        manager
          .traces()
          .filter((t) =>
            t.calls.some(
              (c) => c.verb === 'create' && c.resource === 'deployments' && c.code === 201,
            ),
          );
      while (created().length < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      assert.equal(created().length, 2, 'one Deployment created for each WebApp');
      const deployments = await source.get(
        { apiVersion: 'apps/v1', kind: 'Deployment' },
        'default',
        'shop',
      );
      assert.equal(deployments.metadata.ownerReferences?.[0]?.kind, 'WebApp');

      const first = created()[0]!;
      assert.ok(model.inspect(first.reconcileID));
      const view = model.state().current!;
      assert.deepEqual(
        view.calls.map((c) => [c.verb, c.resource, c.code, c.source]),
        [
          ['get', 'webapps', 200, 'cache'],
          ['get', 'deployments', 404, 'cache'],
          ['create', 'deployments', 201, 'server'],
        ],
      );
      assert.equal(view.result?.next, 'requeue after 5s (requeueAfter)');
    } finally {
      await manager.stop();
      source.dispose();
    }
  });
});
