/**
 * The registry of built-in kinds, made from the pinned release's discovery: every stored
 * resource is served through the generic storage, the kinds with strategies keep them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiData } from '../../../src/cluster/api/apidata';
import { Registry, reviewTypes } from '../../../src/cluster/registry/registry';
import { served } from '../http';
import type { Served } from '../http';

describe('registry from the release', () => {
  it('holds every stored resource of every served group-version', () => {
    const reg = new Registry();
    for (const g of apiData().groups)
      for (const v of g.versions)
        for (const r of v.list.resources) {
          if (r.name.includes('/') || !r.storageVersionHash) continue;
          const t = reg.forResource(v.list.groupVersion, r.name);
          assert.ok(t, `${v.list.groupVersion}/${r.name}`);
          assert.equal(t.info.kind, r.kind);
          assert.equal(t.info.namespaced, r.namespaced);
          assert.deepEqual(t.info.verbs, r.verbs);
        }
  });

  it('gives a kind its scope, short names, categories, status and scale from discovery', () => {
    const reg = new Registry();
    const sts = reg.forKind({ apiVersion: 'apps/v1', kind: 'StatefulSet' })!;
    assert.equal(sts.info.plural, 'statefulsets');
    assert.equal(sts.info.singular, 'statefulset');
    assert.deepEqual(sts.info.shortNames, ['sts']);
    assert.deepEqual(sts.info.categories, ['all']);
    assert.ok(sts.statusSubresource);
    assert.ok(sts.scale);
    const pv = reg.forKind({ apiVersion: 'v1', kind: 'PersistentVolume' })!;
    assert.equal(pv.info.namespaced, false);
    assert.deepEqual(pv.info.shortNames, ['pv']);
    const cm = reg.forKind({ apiVersion: 'v1', kind: 'ConfigMap' })!;
    assert.equal(cm.statusSubresource, false);
  });

  it('serves only the subresources it has handlers for, pods/log, pods/eviction and pods/binding included', () => {
    const pods = new Registry().forKind({ apiVersion: 'v1', kind: 'Pod' })!;
    assert.deepEqual(pods.info.subresources, ['binding', 'eviction', 'log', 'status']);
  });

  it('keeps core and events.k8s.io Events in one store', () => {
    const reg = new Registry();
    const core = reg.forKind({ apiVersion: 'v1', kind: 'Event' })!;
    const events = reg.forKind({ apiVersion: 'events.k8s.io/v1', kind: 'Event' })!;
    assert.equal(core.storageKey, events.storageKey);
    assert.ok(events.fieldLabels);
  });

  it('keeps reviews out of the registry and lists them apart', () => {
    const reg = new Registry();
    assert.equal(reg.forResource('authentication.k8s.io/v1', 'tokenreviews'), undefined);
    assert.deepEqual(
      reviewTypes()
        .map((t) => t.info.kind)
        .sort(),
      [
        'LocalSubjectAccessReview',
        'SelfSubjectAccessReview',
        'SelfSubjectReview',
        'SelfSubjectRulesReview',
        'SubjectAccessReview',
        'TokenReview',
      ],
    );
  });
});

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

const cronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'nightly', namespace: 'default' },
  spec: {
    schedule: '0 1 * * *',
    jobTemplate: {
      spec: {
        template: {
          spec: {
            restartPolicy: 'OnFailure',
            containers: [{ name: 'c', image: 'busybox', args: ['date'] }],
          },
        },
      },
    },
  },
};

const statefulSet = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    replicas: 2,
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template: {
      metadata: { labels: { app: 'db' } },
      spec: { containers: [{ name: 'db', image: 'postgres' }] },
    },
  },
};

function assertSent(got: unknown, sent: unknown, at: string): void {
  if (sent && typeof sent === 'object' && !Array.isArray(sent)) {
    assert.ok(got && typeof got === 'object', at);
    for (const [k, v] of Object.entries(sent))
      assertSent((got as Record<string, unknown>)[k], v, `${at}.${k}`);
  } else if (Array.isArray(sent)) {
    assert.ok(Array.isArray(got) && got.length === sent.length, at);
    sent.forEach((v, i) => assertSent((got as unknown[])[i], v, `${at}[${i}]`));
  } else assert.equal(got, sent, at);
}

async function roundTrip(base: string, obj: { metadata: { name: string } }): Promise<void> {
  const created = await s.call('POST', base, obj);
  assert.equal(created.status, 201, created.body);
  const got = await s.get(`${base}/${obj.metadata.name}`);
  assert.equal(got.status, 200, got.body);
  const body = JSON.parse(got.body) as { spec: unknown; metadata: { uid?: string } };
  // A field sent is a field stored (defaults the apiserver adds may come beside them).
  assertSent(body.spec, (obj as unknown as { spec: unknown }).spec, 'spec');
  assert.ok(body.metadata.uid);
  const list = JSON.parse((await s.get(base)).body) as { items: { metadata: { name: string } }[] };
  assert.deepEqual(
    list.items.map((i) => i.metadata.name),
    [obj.metadata.name],
  );
  const deleted = await s.call('DELETE', `${base}/${obj.metadata.name}`);
  assert.equal(deleted.status, 200, deleted.body);
  assert.equal((await s.get(`${base}/${obj.metadata.name}`)).status, 404);
}

describe('built-ins served through the generic storage', () => {
  it('creates, gets, lists and deletes a CronJob', async () => {
    await roundTrip('/apis/batch/v1/namespaces/default/cronjobs', cronJob);
  });

  it('creates, gets, lists and deletes a StatefulSet', async () => {
    await roundTrip('/apis/apps/v1/namespaces/default/statefulsets', statefulSet);
  });

  it('watches CronJobs and sees an update (PUT) and a status write', async () => {
    const base = '/apis/batch/v1/namespaces/default/cronjobs';
    const made = await s.call('POST', base, {
      ...cronJob,
      metadata: { ...cronJob.metadata, name: 'w' },
    });
    assert.equal(made.status, 201, made.body);
    const obj = JSON.parse(made.body) as Record<string, unknown> & {
      metadata: { resourceVersion: string };
      spec: Record<string, unknown>;
    };
    const events = await s.watch(
      `${base}?watch=1&resourceVersion=${obj.metadata.resourceVersion}`,
      (evs) => evs.length >= 2,
      () =>
        setTimeout(() => {
          void (async () => {
            const put = await s.call('PUT', `${base}/w`, {
              ...obj,
              spec: { ...obj.spec, suspend: true },
            });
            assert.equal(put.status, 200, put.body);
            const rv = (JSON.parse(put.body) as { metadata: { resourceVersion: string } }).metadata
              .resourceVersion;
            const status = await s.call('PUT', `${base}/w/status`, {
              ...obj,
              metadata: { ...obj.metadata, resourceVersion: rv },
              status: { lastScheduleTime: '2026-01-01T01:00:00Z' },
            });
            assert.equal(status.status, 200, status.body);
          })();
        }),
    );
    assert.deepEqual(
      events.map((e) => e.type),
      ['MODIFIED', 'MODIFIED'],
    );
    const last = events[1].object as {
      spec: { suspend?: boolean };
      status?: Record<string, unknown>;
    };
    assert.equal(last.spec.suspend, true);
    assert.deepEqual(last.status, { lastScheduleTime: '2026-01-01T01:00:00Z' });
    await s.call('DELETE', `${base}/w`);
  });

  it("reads and writes a StatefulSet's scale", async () => {
    const base = '/apis/apps/v1/namespaces/default/statefulsets';
    assert.equal((await s.call('POST', base, statefulSet)).status, 201);
    const scale = JSON.parse((await s.get(`${base}/db/scale`)).body) as {
      kind: string;
      spec: { replicas: number };
    };
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 2);
    const patched = await s.call(
      'PATCH',
      `${base}/db/scale`,
      { spec: { replicas: 5 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 200, patched.body);
    const sts = JSON.parse((await s.get(`${base}/db`)).body) as { spec: { replicas: number } };
    assert.equal(sts.spec.replicas, 5);
    await s.call('DELETE', `${base}/db`);
  });

  it('deletes a collection of PersistentVolumes, cluster-scoped', async () => {
    for (const name of ['pv-a', 'pv-b']) {
      const r = await s.call('POST', '/api/v1/persistentvolumes', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name },
        spec: {
          capacity: { storage: '1Gi' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/tmp' },
        },
      });
      assert.equal(r.status, 201, r.body);
    }
    const del = await s.call('DELETE', '/api/v1/persistentvolumes');
    assert.equal(del.status, 200, del.body);
    const list = JSON.parse((await s.get('/api/v1/persistentvolumes')).body) as {
      items: unknown[];
    };
    assert.equal(list.items.length, 0);
  });

  it('answers 404 for a subresource discovery lists but the cluster does not serve', async () => {
    const r = await s.call('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    assert.equal(r.status, 404);
  });
});
