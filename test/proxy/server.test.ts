/**
 * The recording proxy in front of a served cluster (the embedded one, started here over HTTPS with
 * a kubeconfig of its own, as a user's cluster would be): what goes through is forwarded, and the
 * proxy's record of each call agrees with the cluster's own audit record of it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { DEFAULT_USER, startServer, type ServerHandle } from '../../src/cluster/endpoints/server';
import type { AuditEvent } from '../../src/cluster/endpoints/audit';
import { FaultInjector, parseFaults } from '../../src/cluster/faults';
import { PROTOBUF, encodeProtobufObject } from '../../src/cluster/api/protobuf';
import { loadUpstream } from '../../src/proxy/upstream';
import { startProxy, type ProxiedWatchEvent, type ProxyHandle } from '../../src/proxy/server';
import { writeProxyKubeconfig } from '../../src/proxy/kubeconfig';
import { call, until } from './http';

const OPERATOR = 'go-operator';
const kOf = (o: unknown) => (o as { data?: { k?: string } } | undefined)?.data?.k;
const done = (events: AuditEvent[]) => events.filter((e) => e.stage === 'ResponseComplete');
const calls = (events: AuditEvent[]) =>
  done(events).map((e) => ({
    auditID: e.auditID,
    verb: e.verb,
    requestURI: e.requestURI,
    code: e.code,
    userAgent: e.userAgent,
    apiVersion: e.apiVersion,
    resource: e.resource,
    subresource: e.subresource,
    namespace: e.namespace,
    name: e.name,
  }));

describe('recording proxy in front of a served cluster', () => {
  let cluster: Cluster;
  let upstream: ServerHandle;
  let proxy: ProxyHandle;
  let dir: string;
  let userKubeconfig: string;
  let token: string;
  const faults = new FaultInjector([]);

  before(async () => {
    cluster = createCluster();
    upstream = await startServer({ cluster });
    dir = mkdtempSync(join(tmpdir(), 'proxy-test-'));
    userKubeconfig = join(dir, 'config');
    writeFileSync(userKubeconfig, upstream.kubeconfig('dev'));
    proxy = await startProxy({
      upstream: await loadUpstream({ kubeconfig: userKubeconfig, context: 'dev' }),
      faults,
    });
    token = proxy.addUser(OPERATOR);
  });
  after(async () => {
    await proxy?.close();
    await upstream?.close();
    cluster?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('forwards each request with the user’s credentials and records it as the cluster does, call for call', async () => {
    proxy.audit.clear();
    upstream.audit.clear();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '1' } };
    const ns = '/api/v1/namespaces/default/configmaps';
    assert.equal((await call(proxy, token, 'POST', ns, { body: cm })).code, 201);
    assert.equal((await call(proxy, token, 'GET', `${ns}/a`)).code, 200);
    const patched = await call(proxy, token, 'PATCH', `${ns}/a`, {
      body: { data: { k: '2' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.code, 200);
    assert.equal(JSON.parse(patched.text).data.k, '2');
    assert.equal((await call(proxy, token, 'GET', `${ns}?limit=5`)).code, 200);
    assert.equal((await call(proxy, token, 'GET', `${ns}/missing`)).code, 404);
    assert.equal((await call(proxy, token, 'GET', '/version')).code, 200);
    assert.equal((await call(proxy, token, 'DELETE', `${ns}/a`)).code, 200);
    const mine = await until(
      () => proxy.audit.events({ user: OPERATOR }),
      (e) => done(e).length === 7,
      'the proxy’s 7 events',
    );
    const theirs = await until(
      () => upstream.audit.events({ user: DEFAULT_USER }),
      (e) => done(e).length === 7,
      'the cluster’s 7 events',
    );
    assert.deepEqual(calls(mine), calls(theirs));
    assert.deepEqual(
      calls(mine).map((c) => `${c.verb} ${c.code}`),
      ['create 201', 'get 200', 'patch 200', 'list 200', 'get 404', 'get 200', 'delete 200'],
    );
    const notFound = done(mine)[4];
    assert.equal(notFound.reason, 'NotFound');
    assert.equal(notFound.message, 'configmaps "missing" not found');
    assert.ok(done(mine).every((e) => e.end !== undefined && e.end >= e.start));
  });

  it('gives a write the object as last seen going by as its before, and the answer as its after', async () => {
    proxy.audit.clear();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { k: '1' } };
    const ns = '/api/v1/namespaces/default/configmaps';
    await call(proxy, token, 'POST', ns, { body: cm });
    await call(proxy, token, 'PATCH', `${ns}/b`, {
      body: { data: { k: '2' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    // A patch that changes nothing: the same resourceVersion before and after (a no-op write).
    await call(proxy, token, 'PATCH', `${ns}/b`, {
      body: { data: { k: '2' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    const [create, patch, noop] = done(
      await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => done(e).length === 3,
        '3 writes',
      ),
    );
    assert.equal(create.before, undefined);
    assert.equal(kOf(create.after), '1');
    assert.equal(kOf(patch.before), '1');
    assert.equal(kOf(patch.after), '2');
    assert.equal(noop.before?.metadata.resourceVersion, noop.after?.metadata.resourceVersion);
  });

  it('takes a write’s before from a list that went by, decoded only when the write asks', async () => {
    const ns = '/api/v1/namespaces/default/configmaps';
    // Made behind the proxy's back: the proxy knows it only from the list.
    for (const name of ['l1', 'l2'])
      await call(upstream, upstream.token, 'POST', ns, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } },
      });
    proxy.audit.clear();
    assert.equal((await call(proxy, token, 'GET', ns)).code, 200);
    await call(proxy, token, 'PATCH', `${ns}/l2`, {
      body: { data: { k: 'patched' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    const [list, patch] = done(
      await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => done(e).length === 2,
        'the list and the patch',
      ),
    );
    assert.deepEqual([list.verb, list.before, list.after], ['list', undefined, undefined]);
    assert.equal(kOf(patch.before), 'l2');
    assert.equal(kOf(patch.after), 'patched');
  });

  it('decodes protobuf answers for the record, forwarding the bytes as they came', async () => {
    proxy.audit.clear();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb' }, data: { k: 'v' } };
    const got = await call(proxy, token, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: Buffer.from(encodeProtobufObject(cm)),
      headers: { 'content-type': PROTOBUF, accept: PROTOBUF },
    });
    assert.equal(got.code, 201);
    assert.equal(got.headers['content-type'], PROTOBUF);
    assert.deepEqual(got.body.subarray(0, 4), Buffer.from('k8s\0', 'binary'));
    const [ev] = done(
      await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => done(e).length === 1,
        'create',
      ),
    );
    assert.equal(ev.after?.kind, 'ConfigMap');
    assert.deepEqual(ev.after?.data, { k: 'v' });
  });

  it('streams a watch’s events as they happen, in JSON and in protobuf, and tells its listeners', async () => {
    for (const accept of ['application/json', `${PROTOBUF};stream=watch`]) {
      proxy.audit.clear();
      const seen: ProxiedWatchEvent[] = [];
      const off = proxy.onWatchEvent((e) => seen.push(e));
      const name = accept === 'application/json' ? 'w-json' : 'w-pb';
      // The watch is open before the object exists: its event must come through while it is.
      const watch = call(
        proxy,
        token,
        'GET',
        `/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=2&fieldSelector=metadata.name%3D${name}`,
        { headers: { accept } },
      );
      await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => e.some((x) => x.stage === 'ResponseStarted' && x.verb === 'watch'),
        'the watch to start',
      );
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'w' } };
      assert.equal(
        (
          await call(upstream, upstream.token, 'POST', '/api/v1/namespaces/default/configmaps', {
            body: cm,
          })
        ).code,
        201,
      );
      const added = await until(
        () => seen,
        (s) => s.some((e) => e.type === 'ADDED'),
        'the ADDED event',
      );
      off();
      assert.equal(added[0].object.kind, 'ConfigMap');
      assert.deepEqual((added[0].object.metadata as { name: string }).name, name);
      assert.equal(added[0].user, OPERATOR);
      const answer = await watch;
      assert.equal(answer.code, 200);
      const events = await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => done(e).length === 1,
        'the watch to end',
      );
      const [started, ended] = events;
      assert.deepEqual([started.stage, ended.stage], ['ResponseStarted', 'ResponseComplete']);
      assert.equal(started.auditID, ended.auditID);
      assert.equal(ended.name, name);
    }
  });

  it('refuses a token it did not give out with the apiserver’s 401, forwarding nothing', async () => {
    upstream.audit.clear();
    const mine = await call(proxy, 'not-a-token', 'GET', '/api/v1/namespaces');
    const theirs = await call(upstream, 'not-a-token', 'GET', '/api/v1/namespaces');
    assert.equal(mine.code, 401);
    assert.equal(mine.text, theirs.text);
    assert.match(String(mine.headers['audit-id']), /^[0-9a-f-]{36}$/);
    assert.deepEqual(upstream.audit.events(), []);
  });

  it('answers a request a fault rule fails with the injected Status, never forwarding it', async () => {
    await call(proxy, token, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' } },
    });
    faults.reload(
      parseFaults(
        'faults:\n- name: conflict\n  match: {verb: update, resource: configmaps}\n  error: {code: 409}\n  times: 1\n',
        'faults.yaml',
      ),
    );
    proxy.audit.clear();
    upstream.audit.clear();
    const got = await call(proxy, token, 'PUT', '/api/v1/namespaces/default/configmaps/f', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' }, data: { k: 'x' } },
    });
    faults.reload([]);
    assert.equal(got.code, 409);
    const status = JSON.parse(got.text);
    assert.equal(status.reason, 'Conflict');
    assert.equal(
      status.message,
      'Operation cannot be fulfilled on configmaps "f": the object has been modified; please apply your changes to the latest version and try again',
    );
    const [ev] = done(
      await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => done(e).length === 1,
        'the failed update',
      ),
    );
    assert.deepEqual(
      [ev.verb, ev.code, ev.fault, ev.reason],
      ['update', 409, 'conflict', 'Conflict'],
    );
    assert.deepEqual(upstream.audit.events(), []);
  });

  it('answers a rule added while it runs (the debugger’s “Fail the next call with…”) once', async () => {
    proxy.faults.inject({
      name: 'fail-next',
      match: { verb: 'get', resource: 'configmaps', name: 'f' },
      error: { code: 503 },
      times: 1,
      line: 0,
    });
    const path = '/api/v1/namespaces/default/configmaps/f';
    assert.equal((await call(proxy, token, 'GET', path)).code, 503);
    assert.equal((await call(proxy, token, 'GET', path)).code, 200);
  });

  it('gives the operator a kubeconfig of its own that client-node uses, never writing the user’s', async () => {
    const k8s = await import('@kubernetes/client-node');
    const file = join(dir, 'operator', 'kubeconfig');
    writeProxyKubeconfig(
      file,
      proxy.kubeconfig(undefined, OPERATOR),
      join(dir, 'operator', '..', 'config'),
    );
    assert.throws(
      () => writeProxyKubeconfig(userKubeconfig, proxy.kubeconfig(), join(dir, '.', 'config')),
      /refusing to write the proxy's kubeconfig over the user's/,
    );
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(file);
    proxy.audit.clear();
    const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
    const [ev] = done(
      await until(
        () => proxy.audit.events({ user: OPERATOR }),
        (e) => done(e).length === 1,
        'the list',
      ),
    );
    assert.deepEqual([ev.verb, ev.resource, ev.code], ['list', 'namespaces', 200]);
  });
});
