import { strict as assert } from 'node:assert';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { AuditLog, verbOf, type AuditEvent } from '../../../src/cluster/endpoints/audit';
import { createCluster } from '../../../src/cluster/builtins';
import type { Cluster } from '../../../src/cluster/cluster';
import {
  DEFAULT_USER,
  startServer,
  type ServerHandle,
} from '../../../src/cluster/endpoints/server';

describe('AuditLog', () => {
  const req = { user: 'op', userAgent: 'manager/v0.0.0', method: 'GET', requestURI: '/x' };

  it('keeps only the newest events past its limit, numbering them in order', () => {
    const log = new AuditLog({ limit: 3 });
    for (let i = 0; i < 5; i++) log.begin({ ...req, requestURI: `/r${i}` }).complete(200);
    const events = log.events();
    assert.deepEqual(
      events.map((e) => [e.seq, e.requestURI]),
      [
        [3, '/r2'],
        [4, '/r3'],
        [5, '/r4'],
      ],
    );
  });

  it('drops the oldest events’ objects past its byte bound, keeping the events and the newest objects', () => {
    const log = new AuditLog({ objectBytes: 250 });
    const cm = (i: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { i: String(i), pad: 'x'.repeat(40) },
    });
    for (let i = 0; i < 4; i++) {
      const r = log.begin(req);
      r.objectsOf(i ? cm(i - 1) : undefined, cm(i));
      r.complete(200);
    }
    const events = log.events();
    assert.equal(events.length, 4);
    // Each object is 130 bytes of JSON: past 250 bytes only the newest update (260) keeps its objects.
    assert.deepEqual(
      events.map((e) => [!!e.before, !!e.after]),
      [
        [false, false],
        [false, false],
        [false, false],
        [true, true],
      ],
    );
    assert.equal((events[3].after?.data as Record<string, string>).i, '3');
  });

  it('lets go of the objects of events dropped past its limit', () => {
    const log = new AuditLog({ limit: 2 });
    const seen: AuditEvent[] = [];
    log.subscribe((e) => seen.push(e));
    for (let i = 0; i < 3; i++) {
      const r = log.begin(req);
      r.objectsOf(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } });
      r.complete(200);
    }
    assert.deepEqual(
      seen.map((e) => !!e.after),
      [false, true, true],
    );
  });

  it('filters by user and by sequence number', () => {
    const log = new AuditLog();
    log.begin(req).complete(200);
    log.begin({ ...req, user: 'kubectl' }).complete(200);
    log.begin(req).complete(404);
    assert.deepEqual(
      log.events({ user: 'op' }).map((e) => e.code),
      [200, 404],
    );
    assert.deepEqual(
      log.events({ since: 2 }).map((e) => e.seq),
      [3],
    );
  });

  it('tells subscribers of each event until they unsubscribe, and completes a request once', () => {
    const log = new AuditLog();
    const seen: AuditEvent[] = [];
    const off = log.subscribe((e) => seen.push(e));
    const r = log.begin(req);
    r.complete(200);
    r.complete(500);
    off();
    log.begin(req).complete(200);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].code, 200);
    assert.equal(seen[0].stage, 'ResponseComplete');
  });

  it('maps methods to the apiserver verbs', () => {
    assert.equal(verbOf('GET', true, false), 'get');
    assert.equal(verbOf('GET', false, false), 'list');
    assert.equal(verbOf('GET', false, true), 'watch');
    assert.equal(verbOf('POST', false, false), 'create');
    assert.equal(verbOf('PUT', true, false), 'update');
    assert.equal(verbOf('PATCH', true, false), 'patch');
    assert.equal(verbOf('DELETE', true, false), 'delete');
    assert.equal(verbOf('DELETE', false, false), 'deletecollection');
  });
});

describe('served cluster: users and the audit record', () => {
  let cluster: Cluster;
  let server: ServerHandle;
  let opToken: string;

  before(async () => {
    cluster = createCluster();
    server = await startServer({ cluster });
    opToken = server.addUser('operator');
  });
  after(async () => {
    await server.close();
    cluster.close();
  });

  function call(
    token: string,
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ code: number; body: string; auditId?: string }> {
    return new Promise((resolve, reject) => {
      const r = request(
        `${server.url}${path}`,
        {
          method,
          ca: server.caPem,
          headers: {
            authorization: `Bearer ${token}`,
            'user-agent': 'manager/v0.0.0 (linux/amd64) kubernetes/$Format',
            ...(body ? { 'content-type': contentType } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () =>
            resolve({
              code: res.statusCode ?? 0,
              body: text,
              auditId: res.headers['audit-id'] as string | undefined,
            }),
          );
        },
      );
      r.on('error', reject);
      r.end(body ? JSON.stringify(body) : undefined);
    });
  }

  /** Audit events are recorded when the response closes, just after the client has it. */
  async function eventsOf(user: string, n: number): Promise<AuditEvent[]> {
    for (let i = 0; i < 100; i++) {
      const e = server.audit.events({ user });
      if (e.length >= n) return e;
      await new Promise((r) => setTimeout(r, 10));
    }
    return server.audit.events({ user });
  }

  it('accepts each user token and refuses an unknown one', async () => {
    assert.equal((await call(opToken, 'GET', '/api/v1/namespaces/default')).code, 200);
    assert.equal((await call(server.token, 'GET', '/api/v1/namespaces/default')).code, 200);
    assert.equal((await call('nope', 'GET', '/api/v1/namespaces/default')).code, 401);
  });

  it('names each request’s audit ID in its Audit-Id header, an unauthenticated one’s too', async () => {
    server.audit.clear();
    const got = await call(opToken, 'GET', '/api/v1/namespaces/default');
    const [event] = await eventsOf('operator', 1);
    assert.equal(got.auditId, event?.auditID);
    assert.match(got.auditId ?? '', /^[0-9a-f-]{36}$/);
    const refused = await call('nope', 'GET', '/api/v1/namespaces/default');
    assert.equal(refused.code, 401);
    assert.match(refused.auditId ?? '', /^[0-9a-f-]{36}$/);
  });

  it('records who made each request, the verb and resource, and a write before and after', async () => {
    server.audit.clear();
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '1' } };
    assert.equal(
      (await call(opToken, 'POST', '/api/v1/namespaces/default/configmaps', cm)).code,
      201,
    );
    await call(
      opToken,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/a',
      { data: { k: '2' } },
      'application/merge-patch+json',
    );
    await call(server.token, 'GET', '/api/v1/namespaces/default/configmaps');
    const ops = await eventsOf('operator', 2);
    assert.deepEqual(
      ops.map((e) => [e.verb, e.resource, e.namespace, e.name, e.code]),
      [
        ['create', 'configmaps', 'default', '', 201],
        ['patch', 'configmaps', 'default', 'a', 200],
      ],
    );
    assert.equal(ops[0].userAgent, 'manager/v0.0.0 (linux/amd64) kubernetes/$Format');
    assert.equal(ops[0].before, undefined);
    assert.equal(ops[0].after?.metadata.name, 'a');
    assert.deepEqual(ops[1].before?.data, { k: '1' });
    assert.deepEqual(ops[1].after?.data, { k: '2' });
    assert.ok(ops[1].end! >= ops[1].start);
    const admin = await eventsOf(DEFAULT_USER, 1);
    assert.deepEqual(
      admin.map((e) => e.verb),
      ['list'],
    );
  });

  it('records the reason and message of an error response', async () => {
    server.audit.clear();
    const stale = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', resourceVersion: '1' },
      data: { k: '3' },
    };
    const r = await call(opToken, 'PUT', '/api/v1/namespaces/default/configmaps/a', stale);
    assert.equal(r.code, 409);
    const [e] = await eventsOf('operator', 1);
    assert.equal(e.verb, 'update');
    assert.equal(e.code, 409);
    assert.equal(e.reason, 'Conflict');
    assert.match(e.message ?? '', /the object has been modified/);
  });

  it('writes a kubeconfig carrying the token of the user asked for', () => {
    assert.match(server.kubeconfig('op', 'operator'), new RegExp(`token: ${opToken}`));
    assert.throws(() => server.kubeconfig('x', 'nobody'), /no token for user nobody/);
  });
});
