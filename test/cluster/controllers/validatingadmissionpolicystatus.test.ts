import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { VAP_STATUS_CONTROLLER } from '../../../src/cluster/controllers/validatingadmissionpolicystatus';
import { checkPolicy, typesToCheck } from '../../../src/cluster/controllers/policytypechecking';
import { newCluster, flush, widgetCrd } from '../helpers';

const VAP = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy' };

interface Rule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
}

const DEPLOYMENTS: Rule = { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] };
const WIDGETS: Rule = { apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] };

function policy(
  rules: Rule[],
  validations: Array<{ expression: string; messageExpression?: string }>,
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    ...VAP,
    metadata: { name: 'p' },
    spec: {
      matchConstraints: {
        resourceRules: rules.map((r) => ({ ...r, operations: ['CREATE', 'UPDATE'] })),
      },
      validations,
      ...extra,
    },
  };
}

/** The warnings of a policy as the controller would write them (generation 1). */
function warningsOf(p: KubeObject): Array<{ fieldRef: string; warning: string }> {
  const { cluster } = newCluster();
  try {
    return checkPolicy(
      { ...p, metadata: { ...p.metadata, generation: 1 } },
      cluster.resourceTypes(),
    );
  } finally {
    cluster.close();
  }
}

test('a new policy gets status.observedGeneration and an empty typeChecking, applied by the controller', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(policy([DEPLOYMENTS], [{ expression: 'object.spec.replicas <= 5' }]));
  await flush(clock);
  const p = cluster.get(VAP, { name: 'p' });
  assert.deepEqual(p.status, { observedGeneration: 1, typeChecking: {} });
  const entry = p.metadata.managedFields?.find((m) => m.manager === VAP_STATUS_CONTROLLER);
  assert.equal(entry?.operation, 'Apply');
  assert.equal(entry?.subresource, 'status');
  cluster.close();
});

test('the status is written once per generation: a label change writes nothing, a spec change writes again', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(policy([DEPLOYMENTS], [{ expression: 'true' }]));
  await flush(clock);
  const written = cluster.get(VAP, { name: 'p' });
  const labelled = cluster.patch(VAP, { name: 'p' }, { metadata: { labels: { a: 'b' } } }, 'merge');
  await flush(clock);
  assert.equal(
    cluster.get(VAP, { name: 'p' }).metadata.resourceVersion,
    labelled.metadata.resourceVersion,
  );
  assert.notEqual(labelled.metadata.resourceVersion, written.metadata.resourceVersion);
  cluster.patch(VAP, { name: 'p' }, { spec: { failurePolicy: 'Ignore' } }, 'merge');
  await flush(clock);
  const p = cluster.get(VAP, { name: 'p' });
  assert.equal(p.metadata.generation, 2);
  assert.deepEqual(p.status, { observedGeneration: 2, typeChecking: {} });
  cluster.close();
});

test('an undefined field of a built-in kind is warned of with cel-go text, per kind', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(policy([DEPLOYMENTS], [{ expression: 'object.foo == 1' }]));
  await flush(clock);
  assert.deepEqual(cluster.get(VAP, { name: 'p' }).status, {
    observedGeneration: 1,
    typeChecking: {
      expressionWarnings: [
        {
          fieldRef: 'spec.validations[0].expression',
          warning:
            "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 1\n | ......^\n",
        },
      ],
    },
  });
  cluster.close();
});

test('warnings cleared by a new generation leave no typeChecking, as structured-merge-diff prunes the emptied map', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(policy([DEPLOYMENTS], [{ expression: 'object.spec.replicsa <= 5' }]));
  await flush(clock);
  assert.equal(
    (cluster.get(VAP, { name: 'p' }).status as { typeChecking: { expressionWarnings: unknown[] } })
      .typeChecking.expressionWarnings.length,
    1,
  );
  cluster.patch(
    VAP,
    { name: 'p' },
    { spec: { validations: [{ expression: 'object.spec.replicas <= 5' }] } },
    'merge',
  );
  await flush(clock);
  // kube-controller-manager 1.36 applies typeChecking: {}; the apiserver stores no typeChecking.
  assert.deepEqual(cluster.get(VAP, { name: 'p' }).status, { observedGeneration: 2 });
  cluster.close();
});

test('an undefined field of a custom resource is warned of; its metadata is ObjectMeta', async () => {
  const { cluster, clock } = newCluster();
  cluster.create(widgetCrd());
  await flush(clock);
  cluster.create(
    policy(
      [WIDGETS],
      [
        { expression: 'object.spec.size < 10 && object.metadata.generation > 0' },
        { expression: 'object.spec.sise < 10', messageExpression: "'size ' + object.spec.color" },
      ],
    ),
  );
  await flush(clock);
  assert.deepEqual(cluster.get(VAP, { name: 'p' }).status, {
    observedGeneration: 1,
    typeChecking: {
      expressionWarnings: [
        {
          fieldRef: 'spec.validations[1].expression',
          warning:
            "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sise'\n | object.spec.sise < 10\n | ...........^\n",
        },
      ],
    },
  });
  cluster.close();
});

test('valid expressions warn of nothing: nested fields, lists, maps, request, variables, macros', () => {
  const warnings = warningsOf(
    policy(
      [DEPLOYMENTS],
      [
        { expression: 'object.spec.replicas <= variables.max' },
        { expression: "object.spec.template.spec.containers.all(c, c.image.startsWith('r/'))" },
        { expression: "!has(object.metadata.labels) || object.metadata.labels['app'] != ''" },
        { expression: "request.operation == 'CREATE' || oldObject.spec.replicas >= 0" },
        { expression: 'object.spec.template.spec.containers[0].name.size() < 64' },
        { expression: 'object.?spec.?paused.orValue(false) == false' },
        { expression: 'object.spec.strategy.rollingUpdate.maxSurge != 0' },
        { expression: "namespaceObject.metadata.name != 'kube-system'" },
        // A CEL keyword names its escaped field (__namespace__), as cel-go 1.31+ resolves it.
        { expression: "object.metadata.namespace != 'kube-system'" },
        { expression: 'true', messageExpression: "'too many: ' + string(object.spec.replicas)" },
      ],
      { variables: [{ name: 'max', expression: '5' }] },
    ),
  );
  assert.deepEqual(warnings, []);
});

test('a type mismatch and an unknown variable are warned of as cel-go words them', () => {
  const warnings = warningsOf(
    policy(
      [DEPLOYMENTS],
      [{ expression: "object.spec.replicas == 'a'" }, { expression: 'variables.missing' }],
      { variables: [{ name: 'max', expression: '5' }] },
    ),
  );
  assert.deepEqual(
    warnings.map((w) => w.warning),
    [
      "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.replicas == 'a'\n | .....................^\n",
      "apps/v1, Kind=Deployment: ERROR: <input>:1:10: undefined field 'missing'\n | variables.missing\n | .........^\n",
    ],
  );
});

test('a variable that does not check is dyn to the expressions using it, and not itself reported', () => {
  const warnings = warningsOf(
    policy([DEPLOYMENTS], [{ expression: 'variables.bad == object.spec.replicas' }], {
      variables: [{ name: 'bad', expression: "object.spec.replicas == 'x'" }],
    }),
  );
  assert.deepEqual(warnings, []);
});

test('wildcard rules and subresources name no kind to check, so nothing is warned of', () => {
  const { cluster } = newCluster();
  const types = cluster.resourceTypes();
  for (const rule of [
    { apiGroups: ['*'], apiVersions: ['v1'], resources: ['deployments'] },
    { apiGroups: ['apps'], apiVersions: ['*'], resources: ['deployments'] },
    { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*', 'deployments/status'] },
  ]) {
    const p = policy([rule], [{ expression: 'object.foo == 1' }]);
    assert.deepEqual(typesToCheck(p, types), [], JSON.stringify(rule));
    assert.deepEqual(checkPolicy({ ...p, metadata: { name: 'p', generation: 1 } }, types), []);
  }
  cluster.close();
});

test('the kinds to check are sorted by group, version and kind; one warning lists each failing kind', () => {
  const { cluster } = newCluster();
  const p = policy(
    [
      { apiGroups: ['apps', ''], apiVersions: ['v1'], resources: ['replicasets', 'configmaps'] },
      DEPLOYMENTS,
    ],
    [{ expression: 'object.spec.replicas > 0' }],
  );
  assert.deepEqual(
    typesToCheck(p, cluster.resourceTypes()).map((g) => `${g.group}/${g.version}/${g.kind}`),
    ['/v1/ConfigMap', 'apps/v1/Deployment', 'apps/v1/ReplicaSet'],
  );
  const [w] = checkPolicy(
    { ...p, metadata: { name: 'p', generation: 1 } },
    cluster.resourceTypes(),
  );
  assert.equal(
    w?.warning,
    "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.replicas > 0\n | ......^\n",
  );
  cluster.close();
});

test('a Quantity is no field to CEL (its schema has no type), as SchemaDeclType declares it', () => {
  const warnings = warningsOf(
    policy(
      [DEPLOYMENTS],
      [{ expression: 'has(object.spec.template.spec.containers[0].resources.limits)' }],
    ),
  );
  // kube-controller-manager 1.36's words, has() placed at its `(`.
  assert.deepEqual(warnings, [
    {
      fieldRef: 'spec.validations[0].expression',
      warning:
        "apps/v1, Kind=Deployment: ERROR: <input>:1:4: undefined field 'limits'\n | has(object.spec.template.spec.containers[0].resources.limits)\n | ...^\n",
    },
  ]);
});

test('params are typed by paramKind: a ConfigMap has data, not spec', () => {
  const warnings = warningsOf(
    policy(
      [DEPLOYMENTS],
      [{ expression: "params.data['max'] != ''" }, { expression: 'params.spec.max > 1' }],
      { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } },
    ),
  );
  assert.deepEqual(warnings, [
    {
      fieldRef: 'spec.validations[1].expression',
      warning:
        "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'spec'\n | params.spec.max > 1\n | ......^\n",
    },
  ]);
});
