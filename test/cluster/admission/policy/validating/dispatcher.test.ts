import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster } from '../../../../../src/cluster/cluster';
import { DEFAULT_USER } from '../../../../../src/cluster/endpoints/server';
import type { StatusError } from '../../../../../src/cluster/apimachinery/errors';
import type { KubeObject } from '../../../../../src/cluster/apimachinery/types';
import { DEPLOY, deployment, flush, newCluster } from '../../../helpers';
import { served, warningsOf } from '../../../http';
import type { Served } from '../../../http';

const POLICY = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy' };
const BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
};
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

const configMaps = {
  resourceRules: [
    {
      apiGroups: [''],
      apiVersions: ['v1'],
      operations: ['CREATE', 'UPDATE'],
      resources: ['configmaps'],
    },
  ],
};

function policy(name: string, spec: Record<string, unknown>): KubeObject {
  return { ...POLICY, metadata: { name }, spec: { matchConstraints: configMaps, ...spec } };
}

function binding(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    ...BINDING,
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'], ...spec },
  };
}

function configMap(name: string, data: Record<string, string> = {}): KubeObject {
  return { ...CM, metadata: { name, namespace: 'default' }, data };
}

/** The refusal a create meets, or undefined when it is admitted. */
function refusal(cluster: Cluster, obj: KubeObject): StatusError | undefined {
  try {
    cluster.create(obj);
    return undefined;
  } catch (err) {
    return err as StatusError;
  }
}

describe('ValidatingAdmissionPolicy admission, in-process', () => {
  it('a bound policy refuses with its message as 422 Invalid, in the apiserver words', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('no-bad', {
        validations: [{ expression: "object.metadata.name != 'bad'", message: ' not bad ' }],
      }),
    );
    cluster.create(binding('no-bad'));
    const err = refusal(cluster, configMap('bad'))!;
    const message =
      "ValidatingAdmissionPolicy 'no-bad' with binding 'no-bad' denied request: not bad";
    assert.equal(err.code, 422);
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.message, `configmaps "bad" is forbidden: ${message}`);
    assert.deepEqual(err.status.details?.causes, [{ message }]);
    assert.equal(refusal(cluster, configMap('good')), undefined);
    cluster.close();
  });

  it('a policy without a binding, or for another resource, refuses nothing', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(policy('unbound', { validations: [{ expression: 'false' }] }));
    assert.equal(refusal(cluster, configMap('a')), undefined);
    cluster.create(binding('unbound'));
    assert.match(
      refusal(cluster, configMap('b'))!.message,
      /denied request: failed expression: false$/,
    );
    assert.equal(
      refusal(cluster, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'default' },
      }),
      undefined,
    );
    cluster.close();
  });

  it('messageExpression reads variables, request and namespaceObject; reason sets the code', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('keys', {
        variables: [{ name: 'n', expression: 'has(object.data) ? object.data.size() : 0' }],
        validations: [
          {
            expression: 'variables.n <= 1',
            messageExpression:
              "string(variables.n) + ' keys in ' + namespaceObject.metadata.name + ' on ' + request.operation",
            reason: 'Forbidden',
          },
        ],
      }),
    );
    cluster.create(binding('keys'));
    const err = refusal(cluster, configMap('two', { a: '1', b: '2' }))!;
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.match(err.message, /denied request: 2 keys in default on CREATE$/);
    cluster.close();
  });

  it('an evaluation error refuses under Fail, naming the expression, and is ignored under Ignore', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(policy('mode', { validations: [{ expression: "object.data.mode == 'on'" }] }));
    cluster.create(binding('mode'));
    const cm = { ...CM, metadata: { name: 'a', namespace: 'default' } };
    assert.match(
      refusal(cluster, cm)!.message,
      /denied request: expression 'object.data.mode == 'on'' resulted in error: no such key: data$/,
    );
    const p = cluster.get(POLICY, { name: 'mode' })!;
    cluster.update({ ...p, spec: { ...(p.spec as object), failurePolicy: 'Ignore' } });
    assert.equal(refusal(cluster, cm), undefined);
    cluster.close();
  });

  it('params come from paramRef; a missing one refuses only with parameterNotFoundAction Deny', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create({
      ...CM,
      metadata: { name: 'limits', namespace: 'default' },
      data: { max: '1' },
    });
    cluster.create(
      policy('max', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE'],
              resources: ['secrets'],
            },
          ],
        },
        validations: [
          {
            expression: 'size(object.data) <= int(params.data.max)',
            messageExpression: "'at most ' + params.data.max",
          },
        ],
      }),
    );
    cluster.create(
      binding('max', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
    );
    const secret = (name: string, n: number): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'default' },
      data: Object.fromEntries([...Array(n).keys()].map((i) => [`k${i}`, 'eA=='])),
    });
    assert.match(refusal(cluster, secret('two', 2))!.message, /denied request: at most 1$/);
    assert.equal(refusal(cluster, secret('one', 1)), undefined);
    const b = cluster.get(BINDING, { name: 'max' })!;
    const spec = b.spec as Record<string, unknown>;
    cluster.update({
      ...b,
      spec: { ...spec, paramRef: { name: 'gone', parameterNotFoundAction: 'Deny' } },
    });
    assert.match(
      refusal(cluster, secret('three', 1))!.message,
      /denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/,
    );
    cluster.update({
      ...cluster.get(BINDING, { name: 'max' })!,
      spec: { ...spec, paramRef: { name: 'gone', parameterNotFoundAction: 'Allow' } },
    });
    assert.equal(refusal(cluster, secret('four', 9)), undefined);
    cluster.close();
  });

  it('a paramKind the cluster does not serve is a configuration error of the policy', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('p', {
        paramKind: { apiVersion: 'example.com/v1', kind: 'Limits' },
        validations: [{ expression: 'true' }],
      }),
    );
    cluster.create(binding('p', { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } }));
    assert.equal(
      refusal(cluster, configMap('a'))!.message,
      "configmaps \"a\" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Limits'",
    );
    cluster.close();
  });

  it("the built-in controllers' own writes are judged too: a ReplicaSet's pods are refused", async () => {
    const { cluster, clock } = newCluster();
    cluster.create({
      ...POLICY,
      metadata: { name: 'no-latest' },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
          ],
        },
        validations: [
          {
            expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))",
            message: 'no :latest',
          },
        ],
      },
    });
    cluster.create(binding('no-latest'));
    cluster.create(deployment('web', 2, 'nginx:latest'));
    await flush(clock);
    assert.equal([...cluster.scan({ apiVersion: 'v1', kind: 'Pod' }, 'default')].length, 0);
    const rs = [...cluster.scan({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, 'default')][0];
    const failure = (
      (rs.status as { conditions?: Array<Record<string, string>> }).conditions ?? []
    ).find((c) => c.type === 'ReplicaFailure');
    assert.match(failure?.message ?? '', /denied request: no :latest/);
    assert.ok(cluster.get(DEPLOY, { namespace: 'default', name: 'web' }));
    cluster.close();
  });
});

describe('ValidatingAdmissionPolicy admission, served', () => {
  let api: Served;
  let cluster: Cluster;
  before(async () => {
    api = await served();
    cluster = api.cluster;
  });
  after(() => api.close());
  beforeEach(() => {
    for (const t of [BINDING, POLICY])
      for (const o of [...cluster.scan(t)]) cluster.delete(t, { name: o.metadata.name! });
  });

  async function post(
    path: string,
    body: unknown,
  ): Promise<{ code: number; message: string; warnings: string[] }> {
    const a = await api.call('POST', path, body);
    return {
      code: a.status,
      message: String((JSON.parse(a.body) as { message?: string }).message ?? ''),
      warnings: warningsOf(a.headers),
    };
  }

  it('a Warn binding admits with a Warning header naming the policy and binding', async () => {
    cluster.create(
      policy('ok-prefix', {
        validations: [
          { expression: "object.metadata.name.startsWith('ok-')", message: 'start with ok-' },
        ],
      }),
    );
    cluster.create(binding('ok-prefix', { validationActions: ['Warn', 'Audit'] }));
    const a = await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'warned' } });
    assert.equal(a.code, 201);
    assert.deepEqual(a.warnings, [
      "Validation failed for ValidatingAdmissionPolicy 'ok-prefix' with binding 'ok-prefix': start with ok-",
    ]);
    const quiet = await post('/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'ok-x' },
    });
    assert.deepEqual(quiet.warnings, []);
  });

  it('request.userInfo is the authenticated user', async () => {
    cluster.create(
      policy('who', {
        validations: [
          { expression: 'false', messageExpression: "'by ' + request.userInfo.username" },
        ],
      }),
    );
    cluster.create(binding('who'));
    const a = await post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'x' } });
    assert.equal(a.code, 422);
    assert.match(a.message, new RegExp(`denied request: by ${DEFAULT_USER}$`));
  });
});

describe('the authorizer variable', () => {
  it('checks allow everything, as the AlwaysAllow authorizer the fake runs with', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('authz', {
        validations: [
          {
            expression:
              "authorizer.group('apps').resource('deployments').namespace('default').name('x').check('delete').allowed() && authorizer.requestResource.check('create').allowed() && authorizer.path('/healthz').check('get').reason() == '' && !authorizer.serviceAccount('default', 'sa').group('').resource('pods').check('get').errored()",
          },
          { expression: "object.metadata.name != 'no'", messageExpression: "'refused'" },
        ],
      }),
    );
    cluster.create(binding('authz'));
    assert.equal(refusal(cluster, configMap('yes')), undefined);
    assert.match(refusal(cluster, configMap('no'))!.message, /denied request: refused$/);
    cluster.close();
  });

  it('a check on a group without a resource is no such overload', () => {
    const { cluster } = newCluster({ controllers: false });
    cluster.create(
      policy('bad-check', {
        validations: [{ expression: "authorizer.group('apps').check('get').allowed()" }],
      }),
    );
    cluster.create(binding('bad-check'));
    assert.match(refusal(cluster, configMap('a'))!.message, /resulted in error: no such overload$/);
    cluster.close();
  });
});
