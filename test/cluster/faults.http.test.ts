import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FaultInjector, parseFaults } from '../../src/cluster/faults';
import { served } from './http';

const injector = (yaml: string) => new FaultInjector(parseFaults(yaml, 'faults.yaml'));
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' } };

test('a 429 fault answers the Status with Retry-After, and the audit event names the fault', async () => {
  const s = await served({
    faults: injector(`faults:
  - name: throttle
    match: {verb: get, resource: configmaps, name: cfg}
    times: 1
    error: {code: 429}
    retryAfterSeconds: 3
`),
  });
  try {
    s.cluster.create(cm);
    const first = await s.get('/api/v1/namespaces/default/configmaps/cfg');
    assert.equal(first.status, 429);
    assert.equal(first.headers['retry-after'], '3');
    const body = JSON.parse(first.body) as Record<string, unknown>;
    assert.deepEqual(
      [
        body.kind,
        body.reason,
        body.code,
        (body.details as { retryAfterSeconds: number }).retryAfterSeconds,
      ],
      ['Status', 'TooManyRequests', 429, 3],
    );
    const second = await s.get('/api/v1/namespaces/default/configmaps/cfg');
    assert.equal(second.status, 200);
    const events = s.server.audit.events().filter((e) => e.resource === 'configmaps');
    assert.deepEqual(
      events.map((e) => [e.code, e.fault, e.reason]),
      [
        [429, 'throttle', 'TooManyRequests'],
        [200, undefined, undefined],
      ],
    );
  } finally {
    await s.close();
  }
});

test('a gone fault answers a watch with the 410 ERROR event; a list from a resourceVersion with 410', async () => {
  const s = await served({
    faults: injector(`faults:
  - {name: expire, match: {resource: configmaps}, gone: true}
`),
  });
  try {
    const events = await s.watch(
      '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1',
      (ev) => ev.length > 0,
    );
    assert.equal(events[0].type, 'ERROR');
    assert.deepEqual([events[0].object.code, events[0].object.reason], [410, 'Expired']);
    const list = await s.get('/api/v1/namespaces/default/configmaps?resourceVersion=1');
    assert.equal(list.status, 410);
    // A list without a resourceVersion reads the latest: nothing to expire.
    assert.equal((await s.get('/api/v1/namespaces/default/configmaps')).status, 200);
    const audited = s.server.audit.events().filter((e) => e.fault === 'expire');
    assert.deepEqual(
      audited.map((e) => e.verb),
      ['watch', 'watch', 'list'],
    );
  } finally {
    await s.close();
  }
});

test(
  'closeWatch ends the stream after its first events; cacheLagMs still delivers them',
  { timeout: 20_000 },
  async () => {
    const s = await served({
      faults: injector(`faults:
  - {name: drop, match: {verb: watch, namespace: default}, times: 1, closeWatch: true}
  - {name: lag, match: {verb: watch, namespace: kube-system}, cacheLagMs: 200}
`),
    });
    try {
      s.cluster.create(cm);
      // Ends by itself (the server closes it) after the initial ADDED.
      const dropped = await s.watch(
        '/api/v1/namespaces/default/configmaps?watch=true',
        () => false,
      );
      assert.deepEqual(
        dropped.map((e) => e.type),
        ['ADDED'],
      );
      s.cluster.create({ ...cm, metadata: { name: 'late', namespace: 'kube-system' } });
      const lagged = await s.watch(
        '/api/v1/namespaces/kube-system/configmaps?watch=true',
        (ev) => ev.length > 0,
      );
      assert.equal(lagged[0].type, 'ADDED');
    } finally {
      await s.close();
    }
  },
);

test('a quota fault on a create answers the quota admission refusal naming the object in the body', async () => {
  const s = await served({
    faults: injector(`faults:
  - {name: full, match: {verb: create}, error: {code: 403, quota: compute, limited: 2}}
`),
  });
  try {
    const r = await s.call('POST', '/api/v1/namespaces/default/configmaps', cm);
    assert.equal(r.status, 403);
    const body = JSON.parse(r.body) as Record<string, unknown>;
    assert.deepEqual(
      [body.reason, body.message],
      [
        'Forbidden',
        'configmaps "cfg" is forbidden: exceeded quota: compute, requested: configmaps=1, used: configmaps=2, limited: configmaps=2',
      ],
    );
    assert.equal(s.cluster.list({ apiVersion: 'v1', kind: 'ConfigMap' }).items.length, 0);
  } finally {
    await s.close();
  }
});
