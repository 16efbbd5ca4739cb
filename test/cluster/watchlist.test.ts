/**
 * What client-go and controller-runtime send, answered over HTTP as kube-apiserver answers it:
 * aggregated discovery, WatchList (initial events ended by a bookmark), the ListOptions rules
 * (422), boolean query parameters, and the server's watch time-out cap.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Cluster } from '../../src/cluster/cluster';
import { startServer } from '../../src/cluster/server';
import type { ServerHandle } from '../../src/cluster/server';
import { CM } from './helpers';

const CLIENT_GO_DISCOVERY =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

let cluster: Cluster;
let server: ServerHandle;

before(async () => {
  cluster = new Cluster({ controllers: false });
  server = await startServer({ cluster, maxWatchSeconds: 1 });
});
after(async () => {
  await server.close();
  cluster.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { ca: server.caPem, headers: { authorization: `Bearer ${server.token}`, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a watch and collects its events until `until` says stop (or the server ends it). */
function watch(
  path: string,
  until: (events: { type: string; object: Record<string, unknown> }[]) => boolean,
  onOpen?: () => void,
): Promise<{ type: string; object: Record<string, unknown> }[]> {
  return new Promise((resolve, reject) => {
    const events: { type: string; object: Record<string, unknown> }[] = [];
    const req = request(
      `${server.url}${path}`,
      { ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } },
      (res) => {
        assert.equal(res.statusCode, 200);
        let buf = '';
        res.on('data', (d: Buffer) => {
          buf += d.toString();
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buf.slice(0, i)) as (typeof events)[number]);
            buf = buf.slice(i + 1);
          }
          if (until(events)) {
            req.destroy();
            resolve(events);
          }
        });
        res.on('end', () => resolve(events));
        onOpen?.();
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end();
  });
}

interface DiscoveredResource {
  resource: string;
  responseKind: object;
  scope: string;
  singularResource: string;
  subresources: { subresource: string }[];
}

const meta = (o: Record<string, unknown>) => o.metadata as Record<string, unknown>;

describe('aggregated discovery', () => {
  it('answers /apis with an APIGroupDiscoveryList when client-go asks for one', async () => {
    const r = await get('/apis', { accept: CLIENT_GO_DISCOVERY });
    assert.equal(r.status, 200);
    assert.equal(
      r.headers['content-type'],
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    assert.equal(r.headers.vary, 'Accept');
    const doc = JSON.parse(r.body) as {
      kind: string;
      apiVersion: string;
      items: {
        metadata: { name?: string };
        versions: { version: string; resources: DiscoveredResource[] }[];
      }[];
    };
    assert.equal(doc.kind, 'APIGroupDiscoveryList');
    assert.equal(doc.apiVersion, 'apidiscovery.k8s.io/v2');
    const apps = doc.items.find((g) => g.metadata.name === 'apps');
    assert.ok(apps, 'the apps group is listed');
    const deployments = apps.versions[0].resources.find((r) => r.resource === 'deployments');
    assert.deepEqual(deployments!.responseKind, {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    assert.equal(deployments!.scope, 'Namespaced');
    assert.equal(deployments!.singularResource, 'deployment');
    assert.deepEqual(deployments!.subresources.map((s) => s.subresource).sort(), [
      'scale',
      'status',
    ]);
    assert.ok(doc.items.some((g) => g.metadata.name === 'coordination.k8s.io'));
    assert.ok(!doc.items.some((g) => !g.metadata.name), 'the core group is only under /api');
  });

  it('answers /api with the core group alone, and 304 to a matching If-None-Match', async () => {
    const r = await get('/api', { accept: CLIENT_GO_DISCOVERY });
    const doc = JSON.parse(r.body) as {
      items: {
        metadata: { name?: string };
        versions: { version: string; resources: DiscoveredResource[] }[];
      }[];
    };
    assert.equal(doc.items.length, 1);
    assert.equal(doc.items[0].metadata.name, undefined);
    assert.equal(doc.items[0].versions[0].version, 'v1');
    const ns = doc.items[0].versions[0].resources.find((x) => x.resource === 'namespaces');
    assert.equal(ns!.scope, 'Cluster');
    const again = await get('/api', {
      accept: CLIENT_GO_DISCOVERY,
      'if-none-match': String(r.headers.etag),
    });
    assert.equal(again.status, 304);
  });

  it('keeps the legacy documents for plain JSON', async () => {
    const apis = JSON.parse((await get('/apis', { accept: 'application/json' })).body) as {
      kind: string;
    };
    assert.equal(apis.kind, 'APIGroupList');
    const api = JSON.parse((await get('/api')).body) as { kind: string };
    assert.equal(api.kind, 'APIVersions');
  });
});

describe('WatchList', () => {
  it('sends the current objects, then a bookmark ending them at the list resourceVersion', async () => {
    cluster.create({ ...CM, metadata: { name: 'one', namespace: 'default' }, data: {} });
    const list = JSON.parse((await get('/api/v1/namespaces/default/configmaps')).body) as {
      metadata: { resourceVersion: string };
    };
    const events = await watch(
      '/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      (evs) => evs.some((e) => e.type === 'ADDED' && meta(e.object).name === 'two'),
      () =>
        setTimeout(() =>
          cluster.create({ ...CM, metadata: { name: 'two', namespace: 'default' }, data: {} }),
        ),
    );
    assert.equal(events[0].type, 'ADDED');
    assert.equal(meta(events[0].object).name, 'one');
    assert.equal(events[1].type, 'BOOKMARK');
    assert.deepEqual(meta(events[1].object).annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.equal(meta(events[1].object).resourceVersion, list.metadata.resourceVersion);
    assert.equal(events[2].type, 'ADDED');
    assert.equal(meta(events[2].object).name, 'two');
  });

  it('treats a watch from resourceVersion "" or "0" as a WatchList (SetListOptionsDefaults)', async () => {
    for (const rv of ['', '&resourceVersion=0']) {
      const events = await watch(
        `/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true${rv}`,
        (evs) => evs.some((e) => e.type === 'BOOKMARK'),
      );
      assert.ok(events.some((e) => e.type === 'ADDED'));
      const last = events.at(-1)!;
      assert.equal(last.type, 'BOOKMARK');
      assert.deepEqual(meta(last.object).annotations, { 'k8s.io/initial-events-end': 'true' });
    }
  });

  it('reads booleans as the apiserver does (True, 1)', async () => {
    const events = await watch(
      '/api/v1/namespaces/default/configmaps?watch=True&sendInitialEvents=1&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=TRUE',
      (evs) => evs.some((e) => e.type === 'BOOKMARK'),
    );
    assert.ok(events.some((e) => e.type === 'ADDED'));
    assert.equal(events.at(-1)!.type, 'BOOKMARK');
  });

  it('sends no initial events for sendInitialEvents=false, only what changes after', async () => {
    const events = await watch(
      '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan',
      (evs) => evs.length > 0,
      () =>
        setTimeout(() =>
          cluster.create({ ...CM, metadata: { name: 'three', namespace: 'default' }, data: {} }),
        ),
    );
    assert.deepEqual(
      events.map((e) => [e.type, meta(e.object).name]),
      [['ADDED', 'three']],
    );
  });

  it('rejects sendInitialEvents without resourceVersionMatch=NotOlderThan with a 422', async () => {
    const r = await get('/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true');
    assert.equal(r.status, 422);
    const status = JSON.parse(r.body) as { reason: string; message: string; details: object };
    assert.equal(status.reason, 'Invalid');
    assert.equal(
      status.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  });

  it('rejects sendInitialEvents on a list and resourceVersionMatch on a plain watch', async () => {
    const list = await get('/api/v1/configmaps?sendInitialEvents=true');
    assert.equal(list.status, 422);
    assert.match(
      list.body,
      /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/,
    );
    const w = await get('/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan');
    assert.equal(w.status, 422);
    assert.match(
      w.body,
      /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/,
    );
  });

  it('ends watches at the server time-out cap, so clients re-watch', async () => {
    const events = await watch('/api/v1/configmaps?watch=true&timeoutSeconds=300', () => false);
    assert.ok(
      events.every((e) => e.type === 'ADDED'),
      'the stream ended by itself',
    );
  });
});

describe('kinds a manager and kubebuilder manifests use', () => {
  it('stores RBAC ClusterRoles and coordination.k8s.io Leases with microsecond times', async () => {
    cluster.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'manager-role' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }],
    });
    const role = await get('/apis/rbac.authorization.k8s.io/v1/clusterroles/manager-role');
    assert.equal(role.status, 200);
    cluster.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lock', namespace: 'default' },
      spec: { holderIdentity: 'me', renewTime: '2026-01-02T03:04:05.123456Z' },
    });
    const lease = JSON.parse(
      (await get('/apis/coordination.k8s.io/v1/namespaces/default/leases/lock')).body,
    ) as { spec: { renewTime: string } };
    assert.equal(lease.spec.renewTime, '2026-01-02T03:04:05.123456Z');
  });
});
