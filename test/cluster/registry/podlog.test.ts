/**
 * The pods/log subresource over HTTP, as kube-apiserver serves it with a kubelet behind it: the
 * fake kubelet's lines per container (started, ready; SIGTERM and terminated when the pod is
 * deleted), text/plain; the PodLogOptions (`container`, `tailLines`, `timestamps`,
 * `sinceSeconds`, `limitBytes`, `previous`, `follow`) with the apiserver's and kubelet's errors.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { VirtualClock } from '../../../src/util/clock';
import { POD } from '../helpers';
import { served } from '../http';
import type { Served } from '../http';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const clock = new VirtualClock(T0);
let s: Served;
before(async () => {
  s = await served({}, { controllers: true, clock, podReadyDelayMs: 1000 });
});
after(() => s.close());

const PODS = '/api/v1/namespaces/default/pods';
const status = (body: string) =>
  JSON.parse(body) as { message: string; reason: string; code: number };

async function createPod(name: string, containers: string[]): Promise<void> {
  const r = await s.call('POST', PODS, {
    ...POD,
    metadata: { name },
    spec: { containers: containers.map((c) => ({ name: c, image: `img-${c}:1` })) },
  });
  assert.equal(r.status, 201, r.body);
}

/** A following log request: its chunks as they come, and when it ended. */
function follow(path: string): { text: () => string; ended: Promise<number> } {
  let text = '';
  const ended = new Promise<number>((resolve, reject) => {
    const req = request(
      `${s.server.url}${path}`,
      { ca: s.server.caPem, headers: { authorization: `Bearer ${s.server.token}` } },
      (res) => {
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { text: () => text, ended };
}

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setImmediate(r));
}

describe('pods/log', () => {
  it('is a 400 with the kubelet message while the container is being created', async () => {
    await createPod('web', ['app']);
    const r = await s.get(`${PODS}/web/log`);
    assert.equal(r.status, 400, r.body);
    assert.equal(
      status(r.body).message,
      'container "app" in pod "web" is waiting to start: ContainerCreating',
    );
    assert.equal(status(r.body).reason, 'BadRequest');
  });

  it("serves the container's lines as text/plain once it runs", async () => {
    await clock.advance(1000);
    const r = await s.get(`${PODS}/web/log`);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers['content-type'], 'text/plain');
    const lines = r.body.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[2], '');
    assert.equal(
      lines[0],
      'time="2026-01-01T00:00:01.000Z" level=info msg="Container started" container=app image=img-app:1',
    );
    assert.match(lines[1], /msg="Container is ready" container=app$/);
  });

  it('applies timestamps, tailLines, limitBytes and sinceSeconds as the kubelet does', async () => {
    const ts = await s.get(`${PODS}/web/log?timestamps=true`);
    for (const line of ts.body.trimEnd().split('\n'))
      assert.match(line, /^2026-01-01T00:00:01\.000000000Z time="/);
    const tail = await s.get(`${PODS}/web/log?tailLines=1`);
    assert.equal(tail.body.split('\n').length, 2);
    assert.match(tail.body, /Container is ready/);
    assert.equal((await s.get(`${PODS}/web/log?tailLines=0`)).body, '');
    assert.equal((await s.get(`${PODS}/web/log?limitBytes=11`)).body, 'time="2026-');
    await clock.advance(60_000);
    assert.equal((await s.get(`${PODS}/web/log?sinceSeconds=30`)).body, '');
    assert.equal((await s.get(`${PODS}/web/log?sinceSeconds=61`)).body.split('\n').length, 3);
  });

  it('refuses invalid options as the apiserver does', async () => {
    const neg = await s.get(`${PODS}/web/log?tailLines=-1`);
    assert.equal(neg.status, 422);
    assert.equal(
      status(neg.body).message,
      'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
    );
    const limit = await s.get(`${PODS}/web/log?limitBytes=0`);
    assert.equal(limit.status, 422);
    assert.match(
      status(limit.body).message,
      /limitBytes: Invalid value: 0: must be greater than 0/,
    );
    const syntax = await s.get(`${PODS}/web/log?tailLines=x`);
    assert.equal(syntax.status, 400);
    assert.equal(status(syntax.body).message, 'strconv.ParseInt: parsing "x": invalid syntax');
  });

  it('has no previous container to show', async () => {
    const r = await s.get(`${PODS}/web/log?previous=true`);
    assert.equal(r.status, 400);
    assert.equal(
      status(r.body).message,
      'previous terminated container "app" in pod "web" not found',
    );
  });

  it('asks for a container when the pod has several, and refuses an unknown one', async () => {
    await createPod('multi', ['a', 'b']);
    await clock.advance(1000);
    const none = await s.get(`${PODS}/multi/log`);
    assert.equal(none.status, 400);
    assert.equal(
      status(none.body).message,
      'a container name must be specified for pod multi, choose one of: [a b]',
    );
    const bad = await s.get(`${PODS}/multi/log?container=zz`);
    assert.equal(bad.status, 400);
    assert.equal(status(bad.body).message, 'container zz is not valid for pod multi');
    const b = await s.get(`${PODS}/multi/log?container=b`);
    assert.equal(b.status, 200);
    assert.match(b.body, /msg="Container started" container=b image=img-b:1/);
    assert.doesNotMatch(b.body, /container=a/);
  });

  it('is a 404 for a missing pod', async () => {
    const r = await s.get(`${PODS}/nope/log`);
    assert.equal(r.status, 404);
    assert.equal(status(r.body).message, 'pods "nope" not found');
  });

  it('follows the log until the container ends', async () => {
    await createPod('tail', ['app']);
    await clock.advance(1000);
    const f = follow(`${PODS}/tail/log?follow=true`);
    await until(() => f.text().includes('Container is ready'));
    const del = await s.call('DELETE', `${PODS}/tail`);
    assert.equal(del.status, 200, del.body);
    assert.equal(await f.ended, 200);
    const lines = f.text().trimEnd().split('\n');
    assert.equal(lines.length, 4);
    assert.match(
      lines[2],
      /msg="Received SIGTERM, shutting down" container=app gracePeriodSeconds=30$/,
    );
    assert.match(lines[3], /msg="Container terminated" container=app exitCode=0 reason=Completed$/);
    // The pod is gone, and its log with it.
    assert.equal((await s.get(`${PODS}/tail/log`)).status, 404);
  });

  it('ends a follow at limitBytes', async () => {
    const f = follow(`${PODS}/web/log?follow=1&limitBytes=20`);
    assert.equal(await f.ended, 200);
    assert.equal(f.text(), 'time="2026-01-01T00:');
  });

  it("is listed in discovery as get-only, among the release's pod subresources", async () => {
    const r = await s.get('/api/v1');
    const res = (JSON.parse(r.body) as { resources: Record<string, unknown>[] }).resources;
    assert.deepEqual(
      res.find((x) => x.name === 'pods/log'),
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    );
    const subs = res.filter((x) => String(x.name).startsWith('pods/')).map((x) => x.name);
    for (const sub of ['pods/eviction', 'pods/log', 'pods/status']) assert.ok(subs.includes(sub));
  });
});

describe('pods/log of a pod on no node', () => {
  it('answers 204 No Content', async () => {
    const bare = await served({}, { controllers: false });
    try {
      const r = await bare.call('POST', PODS, {
        ...POD,
        metadata: { name: 'p' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      });
      assert.equal(r.status, 201);
      const log = await bare.get(`${PODS}/p/log`);
      assert.equal(log.status, 204);
      assert.equal(log.body, '');
    } finally {
      await bare.close();
    }
  });
});
