/**
 * Discovery and /version as the pinned release serves them: every stable group-version of the
 * release, from its own documents, and CRDs added beside them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiData } from '../../../src/cluster/api/apidata';
import { aggregatedVersion } from '../../../src/cluster/endpoints/aggregateddiscovery';
import { storageVersionHashOf } from '../../../src/cluster/endpoints/discovery';
import { served } from '../http';
import type { Served } from '../http';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

interface Resource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  singularName: string;
  storageVersionHash?: string;
}

let s: Served;
before(async () => {
  s = await served();
});
after(() => s.close());

async function resources(path: string): Promise<Resource[]> {
  const r = await s.get(path);
  assert.equal(r.status, 200, `${path}: ${r.body}`);
  return (JSON.parse(r.body) as { resources: Resource[] }).resources;
}

describe('legacy discovery', () => {
  it('lists batch/v1 jobs and cronjobs, with their status subresources', async () => {
    const rs = await resources('/apis/batch/v1');
    const names = rs.map((r) => r.name);
    for (const n of ['jobs', 'jobs/status', 'cronjobs', 'cronjobs/status'])
      assert.ok(names.includes(n), n);
    const cj = rs.find((r) => r.name === 'cronjobs')!;
    assert.equal(cj.kind, 'CronJob');
    assert.equal(cj.singularName, 'cronjob');
    assert.deepEqual(cj.shortNames, ['cj']);
    assert.deepEqual(cj.categories, ['all']);
    assert.ok(cj.storageVersionHash);
  });

  it('lists apps/v1 statefulsets and daemonsets with their scale and status', async () => {
    const names = (await resources('/apis/apps/v1')).map((r) => r.name);
    for (const n of [
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
      'daemonsets',
      'daemonsets/status',
      'controllerrevisions',
    ])
      assert.ok(names.includes(n), n);
  });

  it('lists admissionregistration.k8s.io/v1 webhooks and policies, cluster-scoped', async () => {
    const rs = await resources('/apis/admissionregistration.k8s.io/v1');
    const byName = new Map(rs.map((r) => [r.name, r]));
    for (const n of [
      'mutatingwebhookconfigurations',
      'validatingwebhookconfigurations',
      'validatingadmissionpolicies',
      'validatingadmissionpolicybindings',
    ])
      assert.equal(byName.get(n)?.namespaced, false, n);
  });

  it('lists the core resources the hand-written table lacked', async () => {
    const names = (await resources('/api/v1')).map((r) => r.name);
    for (const n of [
      'endpoints',
      'persistentvolumes',
      'persistentvolumeclaims',
      'serviceaccounts/token',
      'pods/binding',
      'replicationcontrollers/scale',
    ])
      assert.ok(names.includes(n), n);
  });

  it('lists every stable group of the release in /apis and leaves alpha and beta out', async () => {
    const r = await s.get('/apis');
    const groups = (
      JSON.parse(r.body) as { groups: { name: string; versions: { version: string }[] }[] }
    ).groups;
    const names = groups.map((g) => g.name);
    for (const g of [
      'apps',
      'batch',
      'admissionregistration.k8s.io',
      'certificates.k8s.io',
      'discovery.k8s.io',
      'storage.k8s.io',
      'networking.k8s.io',
      'autoscaling',
    ])
      assert.ok(names.includes(g), g);
    const versions = groups.flatMap((g) => g.versions.map((v) => v.version));
    assert.deepEqual(
      versions.filter((v) => /alpha|beta/.test(v)),
      [],
    );
    const autoscaling = groups.find((g) => g.name === 'autoscaling')!;
    assert.deepEqual(
      autoscaling.versions.map((v) => v.version),
      ['v2', 'v1'],
    );
  });

  it('answers 404 for a group-version the release does not serve by default', async () => {
    assert.equal((await s.get('/apis/batch/v1beta1')).status, 404);
    assert.equal((await s.get('/apis/storagemigration.k8s.io')).status, 404);
  });

  it('adds a CRD group beside the release groups', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        ],
      },
    };
    const created = await s.call(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    assert.equal(created.status, 201, created.body);
    for (let i = 0; i < 50 && !s.cluster.registry.forResource('example.com/v1', 'widgets'); i++)
      await new Promise((r) => setTimeout(r, 20));
    const rs = await resources('/apis/example.com/v1');
    assert.deepEqual(
      rs.map((r) => r.name),
      ['widgets'],
    );
    assert.equal(rs[0]!.storageVersionHash, storageVersionHashOf('example.com', 'v1', 'Widget'));
    const list = JSON.parse((await s.get('/apis')).body) as { groups: { name: string }[] };
    assert.equal(list.groups.at(-1)!.name, 'example.com');
    const agg = JSON.parse((await s.get('/apis', { accept: AGGREGATED })).body) as {
      items: { metadata: { name: string } }[];
    };
    assert.equal(agg.items.at(-1)!.metadata.name, 'example.com');
  });
});

describe('storage version hashes', () => {
  it("are computed as the release's own: equal to every built-in hash its documents hold", async () => {
    let checked = 0;
    for (const [gv, kinds] of [
      ['/apis/batch/v1', ['Job', 'CronJob']],
      ['/apis/apps/v1', ['Deployment', 'StatefulSet']],
      ['/api/v1', ['ConfigMap', 'Pod']],
    ] as const) {
      const [group, version] = gv === '/api/v1' ? ['', 'v1'] : gv.split('/').slice(2);
      for (const r of await resources(gv))
        if ((kinds as readonly string[]).includes(r.kind) && !r.name.includes('/')) {
          assert.equal(
            storageVersionHashOf(group!, version!, r.kind),
            r.storageVersionHash,
            r.kind,
          );
          checked++;
        }
    }
    assert.equal(checked, 6);
  });
});

describe('aggregated discovery', () => {
  it("converts each group-version as kube-apiserver does: equal to the release's /apis document", () => {
    const data = apiData();
    const fromLegacy = data.groups
      .filter((g) => g.name)
      .map((g) => ({
        metadata: { name: g.name },
        versions: g.versions.map((v) => aggregatedVersion(v.list)),
      }));
    const canon = (o: unknown) => JSON.parse(JSON.stringify(o, (_k, v: unknown) => sortKeys(v)));
    assert.deepEqual(canon(fromLegacy), canon(data.aggregated.items));
  });

  it('answers /apis with batch/v1 cronjobs and their status subresource', async () => {
    const r = await s.get('/apis', { accept: AGGREGATED });
    const doc = JSON.parse(r.body) as {
      items: {
        metadata: { name: string };
        versions: {
          version: string;
          resources: { resource: string; subresources?: { subresource: string }[] }[];
        }[];
      }[];
    };
    const batch = doc.items.find((g) => g.metadata.name === 'batch')!;
    const cj = batch.versions[0].resources.find((x) => x.resource === 'cronjobs')!;
    assert.deepEqual(
      cj.subresources?.map((x) => x.subresource),
      ['status'],
    );
  });
});

describe('/version', () => {
  it('answers the pinned release, its major and minor, and the platform', async () => {
    const r = await s.get('/version');
    const v = JSON.parse(r.body) as Record<string, string>;
    const release = apiData().release;
    assert.equal(v.gitVersion, `v${release}`);
    assert.equal(`${v.major}.${v.minor}`, release.split('.').slice(0, 2).join('.'));
    assert.match(v.platform, /^[a-z0-9]+\/[a-z0-9]+$/);
    assert.match(v.goVersion, /^go1\.\d+/);
  });
});

function sortKeys(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}
