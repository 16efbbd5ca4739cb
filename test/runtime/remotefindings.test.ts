import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { AuditLog, type AuditEvent } from '../../src/cluster/endpoints/audit';
import { FaultInjector } from '../../src/cluster/faults';
import type { ApiServer } from '../../src/runtime/apiserver';
import { FaultyApiServer } from '../../src/runtime/faultyapiserver';
import { ObservedManager } from '../../src/runtime/observedcontroller';
import { observedFindings } from '../../src/runtime/observedfindings';
import { RemoteFindingsSource } from '../../src/runtime/remotefindings';
import { parseZapLine } from '../../src/runtime/zaplog';
import { CONFIGMAP, DEPLOYMENT, configMap, env, webapp } from './helpers';

const OPERATOR = 'go-operator';
const EVENT = { apiVersion: 'v1', kind: 'Event' };

let seq = 0;
/** The proxy's record of a finished request. */
function audit(e: Partial<AuditEvent>): AuditEvent {
  return {
    seq: ++seq,
    auditID: `a${seq}`,
    stage: 'ResponseComplete',
    user: OPERATOR,
    userAgent: 'manager/v0.0.0',
    verb: 'create',
    requestURI: '/',
    apiVersion: 'apps/v1',
    resource: 'deployments',
    subresource: '',
    namespace: 'default',
    name: 'shop',
    code: 201,
    start: Date.now(),
    end: Date.now(),
    ...e,
  };
}

/** A manager whose logs said its `webapp` controller reconciled default/shop. */
function managerOfWebApps(): ObservedManager {
  const m = new ObservedManager(OPERATOR, 0);
  for (const msg of ['Reconciling', 'Reconcile successful'])
    m.onLog(
      parseZapLine(
        JSON.stringify({
          level: 'Level(-5)',
          ts: new Date().toISOString(),
          msg,
          controller: 'webapp',
          controllerGroup: 'apps.example.com',
          controllerKind: 'WebApp',
          namespace: 'default',
          name: 'shop',
          reconcileID: 'r1',
        }),
      )!,
    );
  m.flush();
  return m;
}

/** The server's watches: how many are open now. */
function countingWatches(api: ApiServer): { api: ApiServer; open: () => number } {
  let open = 0;
  const counted: ApiServer = Object.create(api) as ApiServer;
  counted.watch = (type, opts, onEvent, onClose) => {
    open++;
    let closed = false;
    const close = () => {
      if (!closed) open--;
      closed = true;
    };
    const h = api.watch(type, opts, onEvent, (err) => {
      close();
      onClose?.(err);
    });
    return {
      stop: () => {
        close();
        h.stop();
      },
    };
  };
  return { api: counted, open: () => open };
}

/** A create in `namespace` completed, in `log` (the proxy's record). */
function written(log: AuditLog, user: string, namespace: string): void {
  const r = log.begin({ user, userAgent: 'manager/v0.0.0', requestURI: '/', method: 'POST' });
  r.resolve(
    { apiVersion: 'v1', resource: 'configmaps', subresource: '', namespace, name: 'x' },
    false,
  );
  r.complete(201);
}

function reasons(source: RemoteFindingsSource): string[] {
  return source
    .events()
    .map((e) => `${e.involvedObject?.namespace}/${e.reason}`)
    .sort();
}

describe('findings read from a real cluster (RemoteFindingsSource)', () => {
  it('watches no Events before the operator writes, then the Warnings of the namespaces it wrote to', async (t) => {
    const { cluster, clock } = await env(t);
    cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    const here = cluster.create(configMap('here'));
    const there = cluster.create({
      ...configMap('there'),
      metadata: { name: 'there', namespace: 'other' },
    });
    cluster.recordEvent(here, 'Warning', 'FailedCreate', 'Error creating: no');
    cluster.recordEvent(here, 'Normal', 'SuccessfulCreate', 'Created');
    cluster.recordEvent(there, 'Warning', 'FailedCreate', 'Error creating: no');
    const { api, open } = countingWatches(cluster);
    const source = new RemoteFindingsSource(api, { user: OPERATOR });
    t.after(() => source.dispose());
    // Someone else's write, the operator's refused one, its read: nothing to watch yet.
    source.onAudit(audit({ user: 'someone', namespace: 'other' }));
    source.onAudit(audit({ namespace: 'other', code: 403 }));
    source.onAudit(audit({ verb: 'get', namespace: 'other', code: 200 }));
    await clock.advance(0);
    assert.deepEqual([source.namespaces(), source.events(), open()], [[], [], 0]);
    source.onAudit(audit({ namespace: 'default' }));
    source.onAudit(audit({ verb: 'update', namespace: 'default', code: 200 }));
    await clock.advance(0);
    assert.deepEqual(source.namespaces(), ['default']);
    assert.equal(open(), 1);
    assert.deepEqual(reasons(source), ['default/FailedCreate']);
    // A Warning recorded later comes through the watch.
    cluster.recordEvent(here, 'Warning', 'BackOff', 'again');
    await clock.advance(0);
    assert.deepEqual(reasons(source), ['default/BackOff', 'default/FailedCreate']);
  });

  it("finds the quota conflict from the ReplicaSet controller's FailedCreate, through the owner chain it fetched", async (t) => {
    const { cluster, clock } = await env(t, {}, true);
    cluster.create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'compute', namespace: 'default' },
      spec: { hard: { pods: '1' } },
    });
    const app = cluster.create(webapp('shop'));
    const source = new RemoteFindingsSource(cluster, { user: OPERATOR });
    t.after(() => source.dispose());
    let changes = 0;
    source.onChange(() => changes++);
    // The operator's Deployment of two replicas: the second pod does not fit the quota.
    cluster.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'shop',
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: app.apiVersion,
            kind: 'WebApp',
            name: 'shop',
            uid: app.metadata.uid!,
            controller: true,
          },
        ],
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'shop' } },
        template: {
          metadata: { labels: { app: 'shop' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    source.onAudit(audit({ namespace: 'default' }));
    for (let i = 0; i < 50 && !source.events().length; i++) await clock.advance(1000);
    const [event] = source.events();
    assert.equal(event?.involvedObject?.kind, 'ReplicaSet');
    assert.ok(changes > 0);
    const f = observedFindings(managerOfWebApps(), source).find((x) => x.kind === 'quota-conflict');
    assert.ok(f, 'a quota-conflict finding');
    assert.deepEqual(f.request, { namespace: 'default', name: 'shop' });
    assert.equal(f.evidence.source, 'event');
    assert.equal(f.evidence.quota, 'compute');
    assert.deepEqual(
      (f.evidence.ownerChain as Array<{ kind: string }>).map((o) => o.kind),
      ['ReplicaSet', 'Deployment', 'WebApp'],
    );
  });

  it('fetches an owner chain up to the reconciled type, not the reconciled object itself', async (t) => {
    const { cluster, clock } = await env(t);
    const app = cluster.create(webapp('shop'));
    const cm = cluster.create({
      ...configMap('shop-config'),
      metadata: {
        name: 'shop-config',
        namespace: 'default',
        ownerReferences: [
          {
            apiVersion: app.apiVersion,
            kind: 'WebApp',
            name: 'shop',
            uid: app.metadata.uid!,
            controller: true,
          },
        ],
      },
    });
    const source = new RemoteFindingsSource(cluster, { user: OPERATOR });
    t.after(() => source.dispose());
    assert.deepEqual(source.typeOf('apps.example.com', 'WebApp'), {
      apiVersion: 'apps.example.com/v1',
      kind: 'WebApp',
    });
    assert.equal(source.typeOf('apps.example.com', 'Nothing'), undefined);
    cluster.recordEvent(cm, 'Warning', 'FailedCreate', 'Error creating: exceeded quota: compute');
    source.onAudit(audit({ namespace: 'default' }));
    await clock.advance(0);
    assert.equal(
      source.objects.get(CONFIGMAP, { namespace: 'default', name: 'shop-config' }).metadata.uid,
      cm.metadata.uid,
    );
    assert.throws(
      () => source.objects.get(app, { namespace: 'default', name: 'shop' }),
      /not found/,
    );
    // Objects no finding Event names are not fetched.
    assert.throws(
      () => source.objects.get(DEPLOYMENT, { namespace: 'default', name: 'shop' }),
      /not found/,
    );
  });

  it('gives up a namespace whose Events it may not read, and says so once', async (t) => {
    const { cluster, clock } = await env(t);
    const faults = new FaultInjector([
      {
        name: 'no-events',
        match: { verb: 'list', resource: 'events' },
        error: { code: 403 },
        line: 1,
      },
    ]);
    const problems: string[] = [];
    const source = new RemoteFindingsSource(new FaultyApiServer(cluster, faults), {
      user: OPERATOR,
      onProblem: (m) => problems.push(m),
    });
    t.after(() => source.dispose());
    source.onAudit(audit({ namespace: 'default' }));
    // The informer would retry every second: ten seconds pass.
    for (let i = 0; i < 10; i++) await clock.advance(1000);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /Events of namespace default cannot be read/);
    assert.deepEqual(source.events(), []);
  });

  it('reads the record back from `since`, then follows it until disposed', async (t) => {
    const { cluster, clock } = await env(t);
    for (const ns of ['before', 'early', 'late', 'after'])
      cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const log = new AuditLog();
    written(log, OPERATOR, 'before');
    const since = log.events().at(-1)!.seq;
    // The operator wrote here before the connection to the cluster was made.
    written(log, OPERATOR, 'early');
    written(log, 'someone', 'default');
    const source = new RemoteFindingsSource(cluster, { user: OPERATOR });
    t.after(() => source.dispose());
    source.follow(log, since);
    written(log, OPERATOR, 'late');
    await clock.advance(0);
    assert.deepEqual(source.namespaces(), ['early', 'late']);
    source.dispose();
    written(log, OPERATOR, 'after');
    assert.deepEqual(source.namespaces(), []);
  });

  it('stops its watches when disposed, and starts none after', async (t) => {
    const { cluster, clock } = await env(t);
    cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    const { api, open } = countingWatches(cluster);
    const source = new RemoteFindingsSource(api, { user: OPERATOR });
    source.onAudit(audit({ namespace: 'default' }));
    source.onAudit(audit({ namespace: 'other' }));
    await clock.advance(0);
    assert.equal(open(), 2);
    source.dispose();
    assert.equal(open(), 0);
    source.onAudit(audit({ namespace: 'kube-system' }));
    await clock.advance(0);
    assert.deepEqual([open(), source.namespaces(), source.events()], [0, [], []]);
    const cm = cluster.create(configMap('late'));
    cluster.recordEvent(cm, 'Warning', 'FailedCreate', 'Error creating: no');
    assert.equal(cluster.list(EVENT).items.length, 1);
    assert.deepEqual(source.events(), []);
  });
});
