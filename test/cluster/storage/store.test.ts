import { NAMESPACE_DELETION_GRACE_MS } from '../../../src/cluster/controllers/namespace';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  StatusError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  isBadRequest,
} from '../../../src/cluster/apimachinery/errors';
import { Store } from '../../../src/cluster/storage/store';
import { CM, POD, WIDGET, flush, newCluster, widget, widgetCrd } from '../helpers';

test('every write bumps one cluster-wide resourceVersion', () => {
  const { cluster } = newCluster();
  const a = cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  const b = cluster.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' } });
  assert.ok(Number(b.metadata.resourceVersion) === Number(a.metadata.resourceVersion) + 1);
  const list = cluster.list(CM);
  assert.equal(list.metadata.resourceVersion, String(cluster.store.resourceVersion));
  cluster.close();
});

test('create of an existing name is a 409 AlreadyExists with the apiserver message', () => {
  const { cluster } = newCluster();
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  assert.throws(
    () => cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }),
    (e: unknown) =>
      isAlreadyExists(e) &&
      (e as StatusError).code === 409 &&
      (e as Error).message === 'configmaps "a" already exists',
  );
  cluster.close();
});

test('get of a missing object is a 404 NotFound naming the group resource', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  assert.throws(
    () => cluster.get(WIDGET, { namespace: 'default', name: 'w1' }),
    (e: unknown) => isNotFound(e) && (e as Error).message === 'widgets.example.com "w1" not found',
  );
  cluster.close();
});

test('update with a stale resourceVersion is a 409 Conflict', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  const w = cluster.create(widget('w1'));
  const w2 = structuredClone(w);
  (w2.spec as { size: number }).size = 2;
  cluster.update(w2);
  (w.spec as { size: number }).size = 3;
  assert.throws(
    () => cluster.update(w),
    (e: unknown) =>
      isConflict(e) &&
      (e as Error).message ===
        'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again',
  );
  cluster.close();
});

test('a custom resource update without resourceVersion is 422 Invalid', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  cluster.create(widget('w1'));
  assert.throws(
    () => cluster.update(widget('w1', 4)),
    (e: unknown) =>
      isInvalid(e) &&
      (e as Error).message ===
        'widgets.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
  );
  cluster.close();
});

test('an update without resourceVersion of a kind whose strategy refuses it (a Lease) is 422, by resource', () => {
  const { cluster } = newCluster();
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'default' },
    spec: {},
  };
  cluster.create(lease);
  assert.throws(
    () => cluster.update({ ...lease, spec: { holderIdentity: 'me' } }),
    (e: unknown) =>
      isInvalid(e) &&
      (e as Error).message ===
        'leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update',
  );
  // A ConfigMap's strategy takes the stored version instead.
  cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default' },
  });
  cluster.update({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default' },
    data: { a: 'b' },
  });
  cluster.close();
});

test('generation starts at 1 and moves only on spec changes', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  let w = cluster.create(widget('w1'));
  assert.equal(w.metadata.generation, 1);
  w.metadata.labels = { a: 'b' };
  w = cluster.update(w);
  assert.equal(w.metadata.generation, 1);
  (w.spec as { size: number }).size = 5;
  w = cluster.update(w);
  assert.equal(w.metadata.generation, 2);
  w.status = { phase: 'Ready' };
  w = cluster.update(w, { subresource: 'status' });
  assert.equal(w.metadata.generation, 2);
  cluster.close();
});

test('with a status subresource the main resource ignores .status and /status ignores the rest', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  const created = cluster.create({ ...widget('w1'), status: { phase: 'Bogus' } });
  assert.equal(created.status, undefined);
  const w = structuredClone(created);
  w.status = { phase: 'Ready' };
  (w.spec as { size: number }).size = 9;
  const afterStatus = cluster.update(w, { subresource: 'status' });
  assert.deepEqual(afterStatus.status, { phase: 'Ready' });
  assert.equal((afterStatus.spec as { size: number }).size, 1);
  const w2 = structuredClone(afterStatus);
  w2.status = { phase: 'Gone' };
  const afterMain = cluster.update(w2);
  assert.deepEqual(afterMain.status, { phase: 'Ready' });
  cluster.close();
});

test('an update that changes nothing is a no-op: same resourceVersion, no watch event', async () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  const w = cluster.create(widget('w1'));
  const events: string[] = [];
  const watch = cluster.watch(
    WIDGET,
    { namespace: 'default', resourceVersion: w.metadata.resourceVersion },
    (e) => events.push(e.type),
  );
  const again = cluster.update(structuredClone(w));
  assert.equal(again.metadata.resourceVersion, w.metadata.resourceVersion);
  await flush();
  assert.deepEqual(events, []);
  watch.stop();
  cluster.close();
});

test('schema violations are 422 Invalid with field paths and the kube-openapi wording', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  assert.throws(
    () => cluster.create(widget('w1', -1)),
    (e: unknown) =>
      isInvalid(e) &&
      (e as Error).message ===
        'Widget.example.com "w1" is invalid: spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0' &&
      (e as StatusError).status.details?.causes?.[0].field === 'spec.size',
  );
  assert.throws(
    () => cluster.create({ ...widget('w2'), spec: { color: 'red' } }),
    /spec.size: Required value/,
  );
  assert.throws(
    () => cluster.create(widget('w3', 1, { color: 'green' })),
    /spec.color: Unsupported value: "green": supported values: "red", "blue"/,
  );
  assert.throws(
    () => cluster.create(widget('w4', 1, { name: 'AB' })),
    /spec.name in body should match '\^\[a-z\]\+\$'/,
  );
  assert.throws(
    () => cluster.create({ ...widget('w5'), spec: { size: 'big' } }),
    /spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"/,
  );
  cluster.close();
});

test('schema defaults are applied and unknown fields pruned', () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  const w = cluster.create(widget('w1', 1, { bogus: true, extra: { anything: { goes: 1 } } }));
  assert.deepEqual(w.spec, { size: 1, color: 'red', extra: { anything: { goes: 1 } } });
  cluster.close();
});

test('invalid names are 422 with the RFC 1123 message; generateName makes a name', () => {
  const { cluster } = newCluster();
  assert.throws(
    () => cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }),
    (e: unknown) =>
      isInvalid(e) &&
      /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/.test(
        (e as Error).message,
      ),
  );
  const g = cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { generateName: 'gen-' },
  });
  assert.match(g.metadata.name!, /^gen-[a-z0-9]{5}$/);
  cluster.close();
});

test('dryRun create validates but stores nothing', () => {
  const { cluster } = newCluster();
  const rv = cluster.store.resourceVersion;
  cluster.create(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } },
    { dryRun: true },
  );
  assert.equal(cluster.store.resourceVersion, rv);
  assert.throws(() => cluster.get(CM, { namespace: 'default', name: 'dry' }), isNotFound);
  cluster.close();
});

test('label selectors support =, !=, in, notin, exists and !exists; bad ones are 400', () => {
  const { cluster } = newCluster();
  const mk = (name: string, labels: Record<string, string>) =>
    cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });
  mk('a', { app: 'web', tier: 'fe' });
  mk('b', { app: 'db' });
  mk('c', { app: 'web' });
  const names = (sel: string) =>
    cluster
      .list(CM, { namespace: 'default', labelSelector: sel })
      .items.map((o) => o.metadata.name);
  assert.deepEqual(names('app=web'), ['a', 'c']);
  assert.deepEqual(names('app!=web'), ['b']);
  assert.deepEqual(names('app in (db,x)'), ['b']);
  assert.deepEqual(names('app notin (db)'), ['a', 'c']);
  assert.deepEqual(names('tier'), ['a']);
  assert.deepEqual(names('!tier'), ['b', 'c']);
  assert.deepEqual(names('app=web,tier=fe'), ['a']);
  assert.throws(() => names('app in db'), isBadRequest);
  cluster.close();
});

test('field selectors on metadata.name and metadata.namespace; unknown fields are 400', () => {
  const { cluster } = newCluster();
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'b', namespace: 'kube-system' },
  });
  assert.deepEqual(
    cluster.list(CM, { fieldSelector: 'metadata.name=b' }).items.map((o) => o.metadata.namespace),
    ['kube-system'],
  );
  assert.deepEqual(
    cluster
      .list(CM, { fieldSelector: 'metadata.namespace!=kube-system' })
      .items.map((o) => o.metadata.name),
    ['a'],
  );
  assert.throws(
    () => cluster.list(CM, { fieldSelector: 'spec.foo=1' }),
    // A kind without field label conversions answers as kube-apiserver 1.36.3 does for ConfigMaps.
    /"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"/,
  );
  cluster.close();
});

// PodToSelectableFields and the v1 pod field label conversion (status.podIPs is taken but in no
// field set, so it is always empty; spec.host is spec.nodeName's old name).
test("a pod's field selectors are kube-apiserver's", () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { nodeName: 'n1', hostNetwork: true, containers: [{ name: 'c', image: 'i' }] },
  });
  const names = (fieldSelector: string) =>
    cluster.list(POD, { namespace: 'default', fieldSelector }).items.map((o) => o.metadata.name);
  assert.deepEqual(names('status.nominatedNodeName='), ['p']);
  assert.deepEqual(names('spec.hostNetwork=true'), ['p']);
  assert.deepEqual(names('spec.host=n1'), ['p']);
  assert.deepEqual(names('status.podIPs='), ['p']);
  assert.deepEqual(names('status.podIPs=10.0.0.1'), []);
  cluster.close();
});

test('list pages with limit and continue see every object once', () => {
  const { cluster } = newCluster();
  for (let i = 0; i < 7; i++)
    cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } });
  const seen: string[] = [];
  let cont: string | undefined;
  let pages = 0;
  do {
    const page = cluster.list(CM, {
      namespace: 'default',
      limit: 3,
      ...(cont ? { continue: cont } : {}),
    });
    seen.push(...page.items.map((o) => o.metadata.name!));
    cont = page.metadata.continue;
    pages++;
  } while (cont);
  assert.equal(pages, 3);
  assert.deepEqual(
    seen,
    [0, 1, 2, 3, 4, 5, 6].map((i) => `cm-${i}`),
  );
  cluster.close();
});

test('returned objects are copies: mutating them changes nothing stored', () => {
  const { cluster } = newCluster();
  const a = cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a' },
    data: { k: 'v' },
  });
  (a.data as Record<string, string>).k = 'changed';
  assert.deepEqual(cluster.get(CM, { namespace: 'default', name: 'a' }).data, { k: 'v' });
  cluster.close();
});

test('creating in a missing namespace is 404; in a terminating one 403 Forbidden', async () => {
  const { cluster, clock } = newCluster();
  assert.throws(
    () =>
      cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'nope' },
      }),
    (e: unknown) => isNotFound(e) && (e as Error).message === 'namespaces "nope" not found',
  );
  cluster.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'held', namespace: 'team', finalizers: ['example.com/hold'] },
  });
  cluster.delete({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'team' });
  await flush(clock);
  const ns = cluster.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'team' });
  assert.equal((ns.status as { phase: string }).phase, 'Terminating');
  assert.throws(
    () =>
      cluster.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'b', namespace: 'team' },
      }),
    (e: unknown) =>
      (e as StatusError).code === 403 &&
      (e as Error).message ===
        'configmaps "b" is forbidden: unable to create new content in namespace team because it is being terminated',
  );
  // After its grace period the namespace controller deletes the contents; the held object
  // blocks the namespace until its finalizer goes.
  await clock.advance(NAMESPACE_DELETION_GRACE_MS);
  await flush(clock);
  const held = cluster.get(CM, { namespace: 'team', name: 'held' });
  assert.ok(held.metadata.deletionTimestamp);
  held.metadata.finalizers = [];
  cluster.update(held);
  await flush(clock);
  assert.throws(
    () => cluster.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'team' }),
    isNotFound,
  );
  cluster.close();
});

test('delete of an object with finalizers sets deletionTimestamp; removing the last finalizer deletes it', async () => {
  const { cluster } = newCluster();
  cluster.create(widgetCrd());
  cluster.create({
    ...widget('w1'),
    metadata: { name: 'w1', namespace: 'default', finalizers: ['example.com/cleanup'] },
  });
  const d = cluster.delete(WIDGET, { namespace: 'default', name: 'w1' });
  assert.ok(d.metadata.deletionTimestamp);
  assert.equal(d.metadata.generation, 2);
  const w = cluster.get(WIDGET, { namespace: 'default', name: 'w1' });
  w.metadata.finalizers = [...w.metadata.finalizers!, 'example.com/more'];
  // Said once in the message and twice in the causes, as kube-apiserver validates it twice.
  assert.throws(
    () => cluster.update(w),
    (err: StatusError) =>
      err.message ===
        'Widget.example.com "w1" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}' &&
      err.status.details?.causes?.length === 2,
  );
  const w2 = cluster.get(WIDGET, { namespace: 'default', name: 'w1' });
  w2.metadata.finalizers = [];
  cluster.update(w2);
  assert.throws(() => cluster.get(WIDGET, { namespace: 'default', name: 'w1' }), isNotFound);
  cluster.close();
});

test("delete preconditions on uid and resourceVersion are 409 Conflicts on the object's kind, as BeforeDelete words them", () => {
  const { cluster } = newCluster();
  const a = cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  assert.throws(
    () =>
      cluster.delete(CM, { namespace: 'default', name: 'a' }, { preconditions: { uid: 'other' } }),
    (err: StatusError) =>
      isConflict(err) &&
      err.status.details?.kind === 'ConfigMap' &&
      err.message ===
        `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (other) does not match the UID in record (${a.metadata.uid}). The object might have been deleted and then recreated`,
  );
  assert.throws(
    () =>
      cluster.delete(
        CM,
        { namespace: 'default', name: 'a' },
        { preconditions: { resourceVersion: '1' } },
      ),
    (err: StatusError) =>
      isConflict(err) &&
      err.message ===
        `Operation cannot be fulfilled on ConfigMap "a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${a.metadata.resourceVersion}). The object might have been modified`,
  );
  cluster.delete(
    CM,
    { namespace: 'default', name: 'a' },
    { preconditions: { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion } },
  );
  cluster.close();
});

test('deletecollection deletes what the selector selects', () => {
  const { cluster } = newCluster();
  cluster.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', labels: { x: '1' } },
  });
  cluster.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
  const res = cluster.deleteCollection(CM, { namespace: 'default', labelSelector: 'x=1' });
  assert.deepEqual(
    res.items.map((o) => o.metadata.name),
    ['a'],
  );
  assert.deepEqual(
    cluster.list(CM, { namespace: 'default' }).items.map((o) => o.metadata.name),
    ['b'],
  );
  cluster.close();
});

test('unknown kinds are a 404 naming the kind and version', () => {
  const { cluster } = newCluster();
  assert.throws(
    () => cluster.get({ apiVersion: 'nope.io/v1', kind: 'Thing' }, { name: 'x' }),
    /no matches for kind "Thing" in version "nope.io\/v1"/,
  );
  cluster.close();
});

test('a CRD becomes Established and its resource appears in discovery; deleting it removes its CRs', async () => {
  const { cluster, clock } = newCluster();
  const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
  const crd = cluster.create(widgetCrd());
  // Stored as the strategy leaves it; the naming controller accepts the names afterwards.
  assert.deepEqual(crd.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
  assert.equal(crd.metadata.finalizers, undefined);
  const r = cluster.resources().find((x) => x.kind === 'Widget')!;
  assert.deepEqual(
    [r.group, r.version, r.plural, r.namespaced, r.shortNames],
    ['example.com', 'v1', 'widgets', true, ['wd']],
  );
  await flush(clock);
  const established = cluster.get(CRD, { name: 'widgets.example.com' });
  const status = established.status as {
    acceptedNames: { kind: string };
    conditions: Array<{ type: string; status: string; reason: string }>;
  };
  assert.equal(status.acceptedNames.kind, 'Widget');
  assert.deepEqual(
    status.conditions.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamesAccepted', 'True', 'NoConflicts'],
      ['Established', 'True', 'InitialNamesAccepted'],
    ],
  );
  const entry = established.metadata.managedFields!.find((m) => m.subresource === 'status');
  assert.equal(entry?.manager, 'kube-apiserver');
  assert.ok(Number(established.metadata.resourceVersion) > Number(crd.metadata.resourceVersion));
  cluster.create(widget('w1'));
  const deleting = cluster.delete(CRD, { name: 'widgets.example.com' });
  // The CRD REST's first delete: its finalizer, a Terminating condition, no grace period.
  assert.deepEqual(deleting.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  assert.equal(deleting.metadata.deletionGracePeriodSeconds, undefined);
  assert.equal(deleting.metadata.generation, crd.metadata.generation);
  assert.ok(
    (deleting.status as typeof status).conditions.some(
      (c) => c.type === 'Terminating' && c.reason === 'InstanceDeletionPending',
    ),
  );
  await flush(clock);
  assert.equal(
    cluster.resources().find((x) => x.kind === 'Widget'),
    undefined,
  );
  assert.equal(cluster.peek(CRD, { name: 'widgets.example.com' }), undefined);
  cluster.close();
});

test('scale subresource reads and writes a Deployment replicas', () => {
  const { cluster } = newCluster({ controllers: false });
  cluster.create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
      },
    },
  });
  const sc = cluster.getScale(
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    { namespace: 'default', name: 'web' },
  );
  assert.equal((sc.spec as { replicas: number }).replicas, 1);
  assert.equal((sc.status as { selector: string }).selector, 'app=web');
  const after = cluster.patch(
    { apiVersion: 'apps/v1', kind: 'Deployment' },
    { namespace: 'default', name: 'web' },
    { spec: { replicas: 4 } },
    'merge',
    { subresource: 'scale' },
  );
  assert.equal(after.kind, 'Scale');
  assert.equal(
    (
      cluster.get(
        { apiVersion: 'apps/v1', kind: 'Deployment' },
        { namespace: 'default', name: 'web' },
      ).spec as { replicas: number }
    ).replicas,
    4,
  );
  cluster.close();
});

test('a Scale without replicas scales to zero, and zero replicas read back as an empty spec', () => {
  const { cluster } = newCluster({ controllers: false });
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment' };
  const key = { namespace: 'default', name: 'web' };
  cluster.create({
    ...ref,
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx:1' }] },
      },
    },
  });
  // ScaleSpec's replicas is an omitempty int32: a Scale that has none (here, merge-patched
  // away) asks for 0, as kubectl scale --replicas=0 does.
  const answer = cluster.patch(ref, key, { spec: { replicas: null } }, 'merge', {
    subresource: 'scale',
  });
  assert.deepEqual(answer.spec, {});
  assert.equal((cluster.get(ref, key).spec as { replicas: number }).replicas, 0);
  assert.deepEqual(cluster.getScale(ref, key).spec, {});
  cluster.close();
});

test('a write whose object cannot be serialized fails whole: nothing is stored or watched', async () => {
  const store = new Store({
    sizeOf: (o) => {
      if (o.metadata.name === 'bad') throw new RangeError('Maximum call stack size exceeded');
      return JSON.stringify(o).length;
    },
  });
  const heard: string[] = [];
  store.subscribe((c) => heard.push(c.object.metadata.name!));
  const obj = (name: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion: String(store.nextRv()) },
  });
  store.commit('/configmaps', 'default/good', 'ADDED', obj('good'));
  assert.throws(() => store.commit('/configmaps', 'default/bad', 'ADDED', obj('bad')), RangeError);
  await flush();
  assert.equal(store.get('/configmaps', 'default/bad'), undefined);
  assert.equal(store.resourceVersion, 2);
  assert.equal(store.count('/configmaps'), 1);
  assert.deepEqual(heard, ['good']);
});

test('the store tells of each object a write replaced or deleted, once the write is applied', () => {
  const told: Array<[string | undefined, boolean]> = [];
  const store = new Store({
    superseded: (o) =>
      told.push([o.metadata.resourceVersion, store.get('/configmaps', 'default/a') === o]),
  });
  const version = (data: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'default', resourceVersion: String(store.nextRv()) },
    data: { data },
  });
  const v1 = version('1');
  store.commit('/configmaps', 'default/a', 'ADDED', v1);
  assert.deepEqual(told, []);
  const v2 = version('2');
  store.commit('/configmaps', 'default/a', 'MODIFIED', v2, v1);
  const gone = version('2');
  store.commit('/configmaps', 'default/a', 'DELETED', gone, v2);
  // Told of v1 then v2, each no longer the stored object by then; never of the new versions.
  assert.deepEqual(told, [
    [v1.metadata.resourceVersion, false],
    [v2.metadata.resourceVersion, false],
  ]);
});

test('a continue token that is not one is a 400 in the storage layer’s words', () => {
  const { cluster } = newCluster();
  const list = (token: string) => {
    try {
      cluster.list(CM, { namespace: 'default', limit: 1, continue: token });
    } catch (err) {
      return (err as Error).message;
    }
    return 'listed';
  };
  assert.equal(
    list('garbage'),
    "invalid continue token: continue key is not valid: invalid character '\\u0081' looking for beginning of value",
  );
  assert.equal(
    list('ab+c'),
    'invalid continue token: continue key is not valid: illegal base64 data at input byte 2',
  );
  const token = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  assert.equal(
    list(token({ v: 'meta.k8s.io/v1', rv: 0, start: 'x' })),
    'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
  assert.equal(
    list(token({ v: 'v9', rv: 1, start: 'x' })),
    'invalid continue token: continue key is not valid: server does not recognize this encoded version v9',
  );
  cluster.close();
});
