import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Cluster } from '../../src/cluster/cluster';
import { loadManifests } from '../../src/cluster/manifests';
import { ObservedManager } from '../../src/runtime/observedcontroller';
import { observedFindings } from '../../src/runtime/observedfindings';
import { parseZapLine } from '../../src/runtime/zaplog';
import { ROOT } from './helpers';

const T0 = Date.parse('2026-11-30T23:00:00Z');

function log(m: ObservedManager, at: number, msg: string, extra: Record<string, unknown> = {}) {
  const line = JSON.stringify({
    level: 'Level(-5)',
    ts: new Date(T0 + at).toISOString(),
    msg,
    controller: 'webapp',
    controllerGroup: 'apps.example.com',
    controllerKind: 'WebApp',
    namespace: 'default',
    name: 'shop',
    reconcileID: 'r1',
    ...extra,
  });
  m.onLog(parseZapLine(line)!);
}

function quotaRefusal(m: ObservedManager, user: string): void {
  log(m, 0, 'Reconciling');
  m.onAudit({
    seq: 1,
    auditID: 'a1',
    stage: 'ResponseComplete',
    user,
    userAgent: 'manager/v0.0.0',
    verb: 'create',
    requestURI: '/api/v1/namespaces/default/pods',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'default',
    name: '',
    code: 403,
    reason: 'Forbidden',
    message:
      'pods "x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2',
    start: T0 + 1,
    end: T0 + 2,
  });
  log(m, 3, 'Reconciler error', { error: 'forbidden' });
}

describe('findings of a Go manager watched from outside', () => {
  it('names the quota conflict of a controller whose kind the cluster serves', () => {
    const cluster = new Cluster();
    loadManifests(cluster, [
      join(ROOT, 'samples/quota-operator/config/crd/bases/apps.example.com_webapps.yaml'),
    ]);
    const m = new ObservedManager('go-operator-debug', 0);
    quotaRefusal(m, 'go-operator-debug');
    const f = observedFindings(m, cluster).find((x) => x.kind === 'quota-conflict');
    cluster.close();
    assert.equal(f?.controller, 'webapp');
    assert.deepEqual(f?.request, { namespace: 'default', name: 'shop' });
  });

  it('has none for a controller whose kind the cluster does not serve', () => {
    const cluster = new Cluster();
    const m = new ObservedManager('go-operator-debug', 0);
    quotaRefusal(m, 'go-operator-debug');
    const all = observedFindings(m, cluster);
    cluster.close();
    assert.deepEqual(all, []);
  });
});
