/**
 * The deprecated `watch/` paths, which kube-apiserver still serves and Ruby's kubeclient uses for
 * every `watch_*`: `/api/v1/watch/namespaces/NS/configmaps`, `/api/v1/watch/configmaps`,
 * `/apis/G/V/watch/...`, and `watch/.../NAME` for one object (a `metadata.name` field selector).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CM, DEPLOY, NS } from './helpers';
import { meta, served } from './http';
import type { Served, WatchedEvent } from './http';

let s: Served;
before(async () => {
  s = await served();
  s.cluster.create({ ...NS, metadata: { name: 'other' } });
});
after(() => s.close());

/** Watches `path` (as kubeclient does, from the current resourceVersion) while `write` runs. */
async function watched(path: string, write: () => void, count = 1): Promise<WatchedEvent[]> {
  const rv = String(s.cluster.store.resourceVersion);
  return s.watch(
    `${path}?resourceVersion=${rv}`,
    (evs) => evs.length >= count,
    () => setTimeout(write),
  );
}

const cm = (namespace: string, name: string) => ({ ...CM, metadata: { name, namespace } });

describe('legacy watch paths', () => {
  it('watch/namespaces/NS/configmaps streams that namespace only', async () => {
    const evs = await watched('/api/v1/watch/namespaces/default/configmaps', () => {
      s.cluster.create(cm('other', 'skipped'));
      s.cluster.create(cm('default', 'seen'));
    });
    assert.equal(evs[0].type, 'ADDED');
    assert.equal(meta(evs[0].object).name, 'seen');
  });

  it('watch/configmaps streams every namespace', async () => {
    const evs = await watched(
      '/api/v1/watch/configmaps',
      () => {
        s.cluster.create(cm('other', 'a1'));
        s.cluster.create(cm('default', 'a2'));
      },
      2,
    );
    assert.deepEqual(
      evs.map((e) => meta(e.object).namespace),
      ['other', 'default'],
    );
  });

  it('watch/namespaces/NS/configmaps/NAME streams that object only', async () => {
    const evs = await watched('/api/v1/watch/namespaces/default/configmaps/mine', () => {
      s.cluster.create(cm('default', 'not-mine'));
      s.cluster.create(cm('default', 'mine'));
    });
    assert.equal(meta(evs[0].object).name, 'mine');
  });

  it('serves group paths: /apis/apps/v1/watch/namespaces/NS/deployments', async () => {
    const evs = await watched('/apis/apps/v1/watch/namespaces/default/deployments', () =>
      s.cluster.create({
        ...DEPLOY,
        metadata: { name: 'd', namespace: 'default' },
        spec: {
          selector: { matchLabels: { app: 'd' } },
          template: {
            metadata: { labels: { app: 'd' } },
            spec: { containers: [{ name: 'c', image: 'i' }] },
          },
        },
      }),
    );
    assert.equal(evs[0].object.kind, 'Deployment');
  });

  it('a field selector naming another object than the path is a 400', async () => {
    const r = await s.get(
      '/api/v1/watch/namespaces/default/configmaps/mine?fieldSelector=metadata.name%3Dother',
    );
    assert.equal(r.status, 400);
    assert.match(r.body, /fieldSelector metadata.name doesn't match requested name/);
  });

  it('serves only GET there, and no subresources', async () => {
    const post = await s.call(
      'POST',
      '/api/v1/watch/namespaces/default/configmaps',
      cm('default', 'x'),
    );
    assert.equal(post.status, 405);
    const sub = await s.get('/api/v1/watch/namespaces/default/pods/p/status');
    assert.equal(sub.status, 404);
  });
});
