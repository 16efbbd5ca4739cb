import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../../../src/cluster/cluster';
import type { StatusError } from '../../../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../../../src/cluster/apimachinery/types';
import { deployment, flush, newCluster } from '../../../helpers';

const GV = 'admissionregistration.k8s.io/v1';
const POLICY = { apiVersion: GV, kind: 'MutatingAdmissionPolicy' };
const BINDING = { apiVersion: GV, kind: 'MutatingAdmissionPolicyBinding' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

const rulesFor = (resource: string) => ({
  resourceRules: [
    { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: [resource] },
  ],
});

function policy(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    ...POLICY,
    metadata: { name },
    spec: { reinvocationPolicy: 'Never', matchConstraints: rulesFor('configmaps'), ...spec },
  };
}

function bind(cluster: Cluster, name: string, spec: Record<string, unknown> = {}): void {
  cluster.create({ ...BINDING, metadata: { name }, spec: { policyName: name, ...spec } });
}

const apply = (expression: string) => ({
  patchType: 'ApplyConfiguration',
  applyConfiguration: { expression },
});
const jsonPatch = (expression: string) => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

function configMap(name: string, data: Record<string, string> = {}): KubeObject {
  return { ...CM, metadata: { name, namespace: 'default' }, data };
}

function created(cluster: Cluster, obj: KubeObject): KubeObject | StatusError {
  try {
    return cluster.create(obj);
  } catch (err) {
    return err as StatusError;
  }
}

describe('MutatingAdmissionPolicy admission', () => {
  it('an ApplyConfiguration merges into the object: labels added, data keys kept', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('label', {
        variables: [{ name: 'who', expression: "'policy'" }],
        mutations: [
          apply(
            "Object{metadata: Object.metadata{labels: {'mutated-by': variables.who}}, data: {'op': request.operation}}",
          ),
        ],
      }),
    );
    bind(cluster, 'label');
    const cm = cluster.create({
      ...configMap('a', { k: 'v' }),
      metadata: { name: 'a', namespace: 'default', labels: { keep: 'yes' } },
    });
    assert.deepEqual(cm.metadata.labels, { keep: 'yes', 'mutated-by': 'policy' });
    assert.deepEqual(cm.data, { k: 'v', op: 'CREATE' });
    cluster.close();
  });

  it('a JSONPatch applies in order; a failed test leaves the object as it was; replace of a missing key adds it', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('patch', {
        mutations: [
          jsonPatch(
            "[JSONPatch{op: 'test', path: '/data/mode', value: 'on'}, JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/x'), value: 'x'}, JSONPatch{op: 'replace', path: '/data/missing', value: 'y'}]",
          ),
        ],
      }),
    );
    bind(cluster, 'patch');
    const on = cluster.create({
      ...configMap('on', { mode: 'on' }),
      metadata: { name: 'on', namespace: 'default', labels: { a: 'b' } },
    });
    assert.deepEqual(on.metadata.labels, { a: 'b', 'example.com/x': 'x' });
    assert.deepEqual(on.data, { mode: 'on', missing: 'y' });
    assert.deepEqual(cluster.create(configMap('off', { mode: 'off' })).data, { mode: 'off' });
    cluster.close();
  });

  it('an error refuses under Fail as a 403 Invalid naming policy and binding, and is ignored under Ignore', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('broken', { mutations: [apply("Object{data: {'k': object.data.nope}}")] }),
    );
    bind(cluster, 'broken');
    const err = created(cluster, configMap('a', { k: 'v' })) as StatusError;
    const message =
      "policy 'broken' with binding 'broken' denied request: expression 'Object{data: {'k': object.data.nope}}' resulted in error: no such key: nope";
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.message, message);
    assert.deepEqual(err.status.details?.causes, [{ message }]);
    const p = cluster.get(POLICY, { name: 'broken' })!;
    cluster.update({ ...p, spec: { ...(p.spec as object), failurePolicy: 'Ignore' } });
    assert.deepEqual((created(cluster, configMap('b', { k: 'v' })) as KubeObject).data, { k: 'v' });
    cluster.close();
  });

  it('an ApplyConfiguration that sets an atomic list is refused, naming its path', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('cmd', {
        matchConstraints: rulesFor('pods'),
        mutations: [
          apply(
            "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'c', command: ['sh']}]}}",
          ),
        ],
      }),
    );
    bind(cluster, 'cmd');
    const err = created(cluster, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    }) as StatusError;
    assert.match(
      err.message,
      /denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: \.spec\.containers\[0\]\.command$/,
    );
    cluster.close();
  });

  it('params come from the binding’s paramRef', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(configMap('defaults', { team: 'blue' }));
    cluster.create(
      policy('team', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: rulesFor('secrets'),
        mutations: [apply("Object{metadata: Object.metadata{labels: {'team': params.data.team}}}")],
      }),
    );
    bind(cluster, 'team', { paramRef: { name: 'defaults', parameterNotFoundAction: 'Deny' } });
    const s = cluster.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
    });
    assert.deepEqual(s.metadata.labels, { team: 'blue' });
    cluster.close();
  });

  it('an IfNeeded policy runs again when a later policy changed the object', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('a-first', {
        reinvocationPolicy: 'IfNeeded',
        mutations: [
          apply(
            "Object{data: {'seen': has(object.data) && 'b' in object.data ? 'after-b' : 'before-b'}}",
          ),
        ],
      }),
    );
    cluster.create(policy('b-second', { mutations: [apply("Object{data: {'b': 'set'}}")] }));
    bind(cluster, 'a-first');
    bind(cluster, 'b-second');
    assert.deepEqual(cluster.create(configMap('x')).data, { seen: 'after-b', b: 'set' });
    cluster.close();
  });

  it('invalid policies are refused as kube-apiserver refuses them', () => {
    const { cluster } = newCluster({ controllers: false });
    assert.throws(
      () =>
        cluster.create({
          ...POLICY,
          metadata: { name: 'bad' },
          spec: { matchConstraints: rulesFor('pods'), mutations: [] },
        }),
      (e: unknown) =>
        (e as StatusError).code === 422 &&
        /spec.mutations: Required value: mutations must contain at least one item, spec.reinvocationPolicy: Required value/.test(
          (e as StatusError).message,
        ),
    );
    cluster.close();
  });

  it("the built-in controllers' writes are mutated too: a ReplicaSet's pods get the label", async () => {
    const { cluster, clock } = newCluster();
    cluster.create(
      policy('pod-label', {
        matchConstraints: rulesFor('pods'),
        mutations: [apply("Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}")],
      }),
    );
    bind(cluster, 'pod-label');
    cluster.create(deployment('web', 2));
    await flush(clock);
    const pods = [...cluster.scan({ apiVersion: 'v1', kind: 'Pod' }, 'default')];
    assert.equal(pods.length, 2);
    for (const p of pods) assert.equal(p.metadata.labels?.mutated, 'yes');
    cluster.close();
  });
});
