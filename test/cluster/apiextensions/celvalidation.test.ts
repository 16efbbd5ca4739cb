import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Cluster } from '../../../src/cluster/cluster';
import { StatusError } from '../../../src/cluster/apimachinery/errors';
import { loadManifests } from '../../../src/cluster/manifests';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { newCluster } from '../helpers';
import { served } from '../http';

type Obj = Record<string, unknown>;

const WEBAPP = { apiVersion: 'example.com/v1', kind: 'WebApp' };
const KEY = { namespace: 'default', name: 'shop' };

/** A CRD as controller-gen writes it from kubebuilder XValidation markers. */
function webAppCrd(specRules?: Obj[], moreSpec: Obj = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'webapps.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'webapps', singular: 'webapp', kind: 'WebApp' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              'x-kubernetes-validations': [
                { rule: 'self.metadata.name.size() <= 12', message: 'name is too long' },
              ],
              properties: {
                spec: {
                  type: 'object',
                  'x-kubernetes-validations': specRules ?? [
                    {
                      rule: 'self.minReplicas <= self.maxReplicas',
                      message: 'minReplicas must not exceed maxReplicas',
                    },
                    {
                      rule: "!has(self.tls) || self.tls.secretName.startsWith('tls-')",
                      messageExpression:
                        "'secret ' + self.tls.secretName + ' must start with tls-'",
                      fieldPath: '.tls.secretName',
                      reason: 'FieldValueForbidden',
                    },
                    { rule: 'self.ratio <= 1.5' },
                  ],
                  properties: {
                    minReplicas: { type: 'integer' },
                    maxReplicas: { type: 'integer' },
                    ratio: { type: 'number' },
                    region: {
                      type: 'string',
                      'x-kubernetes-validations': [
                        { rule: 'self == oldSelf', message: 'Value is immutable' },
                      ],
                    },
                    tls: { type: 'object', properties: { secretName: { type: 'string' } } },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      'x-kubernetes-validations': [
                        {
                          rule: 'self.map(p, p.port).isSorted()',
                          message: 'ports must be sorted',
                        },
                      ],
                      items: {
                        type: 'object',
                        required: ['name', 'port'],
                        'x-kubernetes-validations': [
                          { rule: 'self.port > 1024', message: 'privileged port' },
                          { rule: 'self.port == oldSelf.port', message: 'port is immutable' },
                        ],
                        properties: { name: { type: 'string' }, port: { type: 'integer' } },
                      },
                    },
                    ...moreSpec,
                    labels: {
                      type: 'object',
                      additionalProperties: {
                        type: 'string',
                        'x-kubernetes-validations': [{ rule: 'self.matches("^[a-z]+$")' }],
                      },
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    phase: {
                      type: 'string',
                      'x-kubernetes-validations': [
                        { rule: "self in ['Pending', 'Ready']", message: 'unknown phase' },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function webApp(spec: Obj, name = 'shop'): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'WebApp',
    metadata: { name, namespace: 'default' },
    spec: { minReplicas: 1, maxReplicas: 3, ratio: 1, ...spec },
  };
}

function withCrd(specRules?: Obj[], moreSpec?: Obj): Cluster {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(webAppCrd(specRules, moreSpec));
  return cluster;
}

/** The 422 message of a write that must fail. */
function invalid(write: () => unknown): string {
  try {
    write();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, 422);
    return err.message;
  }
  assert.fail('the write was accepted');
}

test('a rule on an object refuses a create with its message and the value type', () => {
  const cluster = withCrd();
  assert.equal(
    invalid(() => cluster.create(webApp({ minReplicas: 5 }))),
    'WebApp.example.com "shop" is invalid: spec: Invalid value: minReplicas must not exceed maxReplicas',
  );
  assert.equal(cluster.create(webApp({})).metadata.name, 'shop');
  cluster.close();
});

test('a rule without a message fails with "failed rule: <rule>"', () => {
  const cluster = withCrd();
  assert.equal(
    invalid(() => cluster.create(webApp({ ratio: 2 }))),
    'WebApp.example.com "shop" is invalid: spec: Invalid value: failed rule: self.ratio <= 1.5',
  );
  cluster.close();
});

test('a number field compares as a double and an integer field as an int', () => {
  // ratio: 1 arrives as a JSON integer; the schema's number type makes it 1.0 for CEL.
  const cluster = withCrd([
    { rule: 'self.ratio == 1.0 && type(self.ratio) == double' },
    { rule: 'type(self.minReplicas) == int && self.minReplicas + 1 == 2' },
  ]);
  cluster.create(webApp({ ratio: 1, minReplicas: 1 }));
  cluster.close();
});

test('strings with a duration or date-time format are CEL durations and timestamps', () => {
  const cluster = withCrd(
    [
      { rule: "self.timeout <= duration('1h')", message: 'timeout above an hour' },
      { rule: "self.notAfter > timestamp('2026-01-01T00:00:00Z')", message: 'expired' },
    ],
    {
      timeout: { type: 'string', format: 'duration' },
      notAfter: { type: 'string', format: 'date-time' },
    },
  );
  cluster.create(webApp({ timeout: '30m', notAfter: '2027-06-01T00:00:00Z' }));
  assert.equal(
    invalid(() =>
      cluster.create(webApp({ timeout: '2h', notAfter: '2025-06-01T00:00:00Z' }, 'late')),
    ),
    'WebApp.example.com "late" is invalid: [spec: Invalid value: timeout above an hour, spec: Invalid value: expired]',
  );
  cluster.close();
});

test('properties named like CEL keywords or with dashes are reached by their escaped names', () => {
  const cluster = withCrd(
    [{ rule: "self.__namespace__ == 'web' && self.max__dash__surge == 1 && self.a__dot__b" }],
    {
      namespace: { type: 'string' },
      'max-surge': { type: 'integer' },
      'a.b': { type: 'boolean' },
    },
  );
  cluster.create(webApp({ namespace: 'web', 'max-surge': 1, 'a.b': true }));
  assert.match(
    invalid(() => cluster.create(webApp({ namespace: 'db', 'max-surge': 1, 'a.b': true }, 'db'))),
    /spec: Invalid value: failed rule: self\.__namespace__ == 'web'/,
  );
  cluster.close();
});

test('a root rule sees metadata.name and fails with a nil field path', () => {
  const cluster = withCrd();
  assert.equal(
    invalid(() => cluster.create(webApp({}, 'a-very-long-name'))),
    'WebApp.example.com "a-very-long-name" is invalid: <nil>: Invalid value: name is too long',
  );
  cluster.close();
});

test('a transition rule is skipped on create and keeps a field immutable on update and patch', () => {
  const cluster = withCrd();
  const created = cluster.create(webApp({ region: 'eu' }));
  const moved = { ...created, spec: { ...(created.spec as Obj), region: 'us' } };
  const want =
    'WebApp.example.com "shop" is invalid: spec.region: Invalid value: "us": Value is immutable';
  assert.equal(
    invalid(() => cluster.update(moved)),
    want,
  );
  assert.equal(
    invalid(() => cluster.patch(WEBAPP, KEY, { spec: { region: 'us' } }, 'merge')),
    want,
  );
  const scaled = cluster.patch(WEBAPP, KEY, { spec: { maxReplicas: 4 } }, 'merge');
  assert.equal((scaled.spec as Obj).maxReplicas, 4);
  cluster.close();
});

test('an optionalOldSelf rule runs on create with oldSelf none and on update with its value', () => {
  const cluster = withCrd([
    {
      rule: '!oldSelf.hasValue() || self.maxReplicas >= oldSelf.value().maxReplicas',
      message: 'maxReplicas may only grow',
      optionalOldSelf: true,
    },
    {
      rule: "oldSelf.orValue({'minReplicas': 0}).minReplicas <= 1 || oldSelf == optional.none()",
      message: 'seen with more than one replica',
      optionalOldSelf: true,
    },
  ]);
  cluster.create(webApp({ maxReplicas: 3 }));
  assert.match(
    invalid(() => cluster.patch(WEBAPP, KEY, { spec: { maxReplicas: 2 } }, 'merge')),
    /spec: Invalid value: maxReplicas may only grow$/,
  );
  cluster.patch(WEBAPP, KEY, { spec: { maxReplicas: 5, minReplicas: 2 } }, 'merge');
  assert.match(
    invalid(() => cluster.patch(WEBAPP, KEY, { spec: { maxReplicas: 6 } }, 'merge')),
    /spec: Invalid value: seen with more than one replica$/,
  );
  cluster.close();
  const strict = withCrd([{ rule: 'oldSelf.hasValue()', optionalOldSelf: true }]);
  assert.match(
    invalid(() => strict.create(webApp({}))),
    /spec: Invalid value: failed rule: oldSelf\.hasValue\(\)$/,
  );
  strict.close();
});

test('messageExpression, fieldPath and reason shape the error', () => {
  const cluster = withCrd();
  assert.equal(
    invalid(() => cluster.create(webApp({ tls: { secretName: 'web' } }))),
    'WebApp.example.com "shop" is invalid: spec.tls.secretName: Forbidden: secret web must start with tls-',
  );
  cluster.close();
});

test('a messageExpression that fails falls back to the message', () => {
  const cluster = withCrd([
    // tls is declared but absent: the expression fails at run time (no such key).
    { rule: 'self.minReplicas > 1', message: 'too few', messageExpression: 'self.tls.secretName' },
  ]);
  assert.match(
    invalid(() => cluster.create(webApp({}))),
    /spec: Invalid value: too few$/,
  );
  cluster.close();
});

test('rules run on every list item and map value, with the item path', () => {
  const cluster = withCrd();
  const ports = [
    { name: 'http', port: 8080 },
    { name: 'admin', port: 80 },
  ];
  assert.equal(
    invalid(() => cluster.create(webApp({ ports }))),
    'WebApp.example.com "shop" is invalid: [spec.ports: Invalid value: ports must be sorted, spec.ports[1]: Invalid value: privileged port]',
  );
  assert.match(
    invalid(() => cluster.create(webApp({ labels: { team: 'web', Tier: 'X' } }))),
    /spec\.labels\[Tier\]: Invalid value: "X": failed rule: self\.matches\("\^\[a-z\]\+\$"\)$/,
  );
  cluster.close();
});

test('a transition rule on a list-type=map item compares the item with the same key', () => {
  const cluster = withCrd();
  cluster.create(webApp({ ports: [{ name: 'http', port: 8080 }] }));
  // A new item has no old value: only the item that existed is held to its port.
  cluster.patch(
    WEBAPP,
    KEY,
    {
      spec: {
        ports: [
          { name: 'http', port: 8080 },
          { name: 'metrics', port: 9090 },
        ],
      },
    },
    'merge',
  );
  assert.match(
    invalid(() =>
      cluster.patch(WEBAPP, KEY, { spec: { ports: [{ name: 'http', port: 8081 }] } }, 'merge'),
    ),
    /spec\.ports\[0\]: Invalid value: port is immutable$/,
  );
  cluster.close();
});

test('an evaluation error is reported in the apiserver wording', () => {
  const cluster = withCrd([{ rule: "self.tls.secretName != ''" }]);
  assert.equal(
    invalid(() => cluster.create(webApp({}))),
    `WebApp.example.com "shop" is invalid: spec: Invalid value: "object": no such key: tls evaluating rule: self.tls.secretName != ''`,
  );
  cluster.close();
});

test('rules are not run on an object that fails its schema', () => {
  const cluster = withCrd();
  assert.equal(
    invalid(() => cluster.create(webApp({ minReplicas: 'many' }))),
    'WebApp.example.com "shop" is invalid: [spec.minReplicas: Invalid value: "string": spec.minReplicas in body must be of type integer: "string", <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
  );
  cluster.close();
});

test('status writes are validated by the status rules, and unchanged spec errors ratchet', () => {
  const cluster = withCrd();
  const created = cluster.create(webApp({ minReplicas: 2 }));
  assert.match(
    invalid(() =>
      cluster.update({ ...created, status: { phase: 'Lost' } }, { subresource: 'status' }),
    ),
    /status\.phase: Invalid value: "Lost": unknown phase$/,
  );
  // A stricter rule arrives with a new CRD revision: the stored spec now violates it.
  const crd = cluster.get(
    { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
    { name: 'webapps.example.com' },
  );
  const version = ((crd.spec as Obj).versions as Obj[])[0]!;
  const spec = ((version.schema as Obj).openAPIV3Schema as Obj).properties as Obj;
  (spec.spec as Obj)['x-kubernetes-validations'] = [
    { rule: 'self.minReplicas == 1', message: 'one replica at least' },
  ];
  cluster.update(crd);
  const current = cluster.get(WEBAPP, KEY);
  const ready = cluster.update(
    { ...current, status: { phase: 'Ready' } },
    { subresource: 'status' },
  );
  assert.equal((ready.status as Obj).phase, 'Ready');
  assert.match(
    invalid(() => cluster.patch(WEBAPP, KEY, { spec: { minReplicas: 3 } }, 'merge')),
    /spec: Invalid value: one replica at least$/,
  );
  cluster.close();
});

test('server-side apply is validated like any other write', () => {
  const cluster = withCrd();
  const body = { ...webApp({ minReplicas: 9 }), metadata: { name: 'shop' } };
  assert.match(
    invalid(() => cluster.patch(WEBAPP, KEY, body, 'apply', { fieldManager: 'kubectl' })),
    /spec: Invalid value: minReplicas must not exceed maxReplicas$/,
  );
  cluster.close();
});

// The internal CRD holds a schema every version shares in spec.validation, and field.Error
// renders the rule as json.Marshal of the internal type (Go field names): kube-apiserver 1.36.3.
test('a CRD whose rule does not compile is refused with the rule and the compiler issue', () => {
  const { cluster } = newCluster({ controllers: false });
  const prefix =
    'CustomResourceDefinition.apiextensions.k8s.io "webapps.example.com" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ';
  assert.equal(
    invalid(() => cluster.create(webAppCrd([{ rule: 'self.replicas > 0' }]))),
    prefix +
      '{"Rule":"self.replicas \\u003e 0","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: ' +
      "compilation failed: ERROR: <input>:1:5: undefined field 'replicas'\n | self.replicas > 0\n | ....^",
  );
  // A rule ending with an operator: ANTLR's missing operand at the end, and json.Marshal's `\u003e`.
  assert.equal(
    invalid(() => cluster.create(webAppCrd([{ rule: 'self.minReplicas >' }]))),
    prefix +
      '{"Rule":"self.minReplicas \\u003e","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: ' +
      "compilation failed: ERROR: <input>:1:19: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.minReplicas >\n | ..................^",
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'self.minReplicas > 1 ? true :' }]))),
    /<input>:1:30: Syntax error: mismatched input '<EOF>' expecting \{'\[', /,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'self.minReplicas +)' }]))),
    /compilation failed: ERROR: <input>:1:\d+: Syntax error: /,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'nosuch(self)' }]))),
    /compilation failed: ERROR: <input>:1:7: undeclared reference to 'nosuch' \(in container ''\)\n \| nosuch\(self\)\n \| \.\.\.\.\.\.\^/,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: "self.minReplicas == '1'" }]))),
    /compilation failed: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '\(int, string\)'/,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: "self.ratio.startsWith('1')" }]))),
    /compilation failed: ERROR: <input>:1:22: found no matching overload for 'startsWith' applied to 'double\.\(string\)'/,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'self.minReplicas + 1' }]))),
    /x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":.*\}: cel expression must evaluate to a bool$/,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'true', messageExpression: 'self.nothing' }]))),
    /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: \{"Rule":.*\}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nothing'/,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'true', reason: 'Bogus' }]))),
    /x-kubernetes-validations\[0\]\.reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"$/,
  );
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: 'true', fieldPath: '.nowhere' }]))),
    /x-kubernetes-validations\[0\]\.fieldPath: Invalid value: "\.nowhere": fieldPath must be a valid path$/,
  );
  cluster.close();
});

test('mixed-type arithmetic, logic on non-bools, size of a number, selection on a scalar and non-bool results are compile errors', () => {
  const { cluster } = newCluster({ controllers: false });
  const issue = (rule: string) => {
    const msg = invalid(() => cluster.create(webAppCrd([{ rule }])));
    return msg.slice(msg.indexOf('}: ') + 3);
  };
  const missing: [string, string, string][] = [
    ['self.ratio + 1 > 2.0', '1:12', "'_+_' applied to '(double, int)'"],
    ["self.region - 'a' == ''", '1:13', "'_-_' applied to '(string, string)'"],
    ['self.minReplicas && true', '1:18', "'_&&_' applied to '(int, bool)'"],
    ['self.minReplicas.size() > 0', '1:22', "'size' applied to 'int.()'"],
    ['self.minReplicas ? true : false', '1:18', "'_?_:_' applied to '(int, bool, bool)'"],
    ["'a' in self.region", '1:5', "'@in' applied to '(string, string)'"],
  ];
  for (const [rule, at, overload] of missing)
    assert.ok(
      issue(rule).startsWith(
        `compilation failed: ERROR: <input>:${at}: found no matching overload for ${overload}\n | ${rule}\n`,
      ),
      issue(rule),
    );
  assert.equal(
    issue("url('https://example.com').getHost()"),
    'cel expression must evaluate to a bool',
  );
  assert.equal(issue('self.region.size()'), 'cel expression must evaluate to a bool');
  assert.equal(issue("self.minReplicas > 1 ? 'a' : 'b'"), 'cel expression must evaluate to a bool');
  assert.ok(
    issue('self.region.name == 1').startsWith(
      "compilation failed: ERROR: <input>:1:12: type 'string' does not support field selection\n",
    ),
  );
  // Numbers still compare across int and double, and a string concatenates with a string.
  cluster.create(webAppCrd([{ rule: "self.minReplicas < self.ratio && self.region + 'x' != ''" }]));
  cluster.close();
});

test('oldSelf is refused where old and new values cannot be correlated', () => {
  const { cluster } = newCluster({ controllers: false });
  const crd = webAppCrd([{ rule: 'true' }]);
  const version = ((crd.spec as Obj).versions as Obj[])[0]!;
  const spec = (((version.schema as Obj).openAPIV3Schema as Obj).properties as Obj).spec as Obj;
  (spec.properties as Obj).hosts = {
    type: 'array',
    items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
  };
  assert.match(
    invalid(() => cluster.create(crd)),
    /properties\[hosts\]\.items\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[hosts\]$/,
  );
  cluster.close();
});

test('the Kubernetes list, regex, sets and strings libraries are available to rules', () => {
  const cluster = withCrd([
    { rule: '[3, 1, 2].sum() == 6 && [3, 1, 2].min() == 1 && [3, 1, 2].max() == 3' },
    { rule: '[1, 2, 3].isSorted() && ![2, 1].isSorted() && [1, 2, 3].indexOf(2) == 1' },
    { rule: "'abc123'.find('[0-9]+') == '123' && 'a1b2'.findAll('[0-9]') == ['1', '2']" },
    { rule: 'sets.contains([1, 2, 3], [2]) && sets.intersects([1], [1, 5])' },
    { rule: "'a,b'.split(',').join('-') == 'a-b' && ' X '.trim().lowerAscii() == 'x'" },
    { rule: '[1, 2].all(x, x > 0) && [1, 2].exists_one(x, x == 2) && [1].map(x, x * 2) == [2]' },
  ]);
  cluster.create(webApp({}));
  cluster.close();
  const empty = withCrd([{ rule: '[1].max() == 1 && [].max() > 0' }]);
  assert.equal(
    invalid(() => empty.create(webApp({}))),
    'WebApp.example.com "shop" is invalid: spec: Invalid value: "object": max called on empty list evaluating rule: [1].max() == 1 && [].max() > 0',
  );
  empty.close();
});

test('the URL, IP, CIDR and format libraries of the 1.32 environment run in rules', () => {
  const cluster = withCrd(
    [
      {
        rule: "isURL(self.endpoint) && url(self.endpoint).getScheme() == 'https'",
        message: 'endpoint must be an https URL',
      },
      {
        rule: 'cidr(self.podCIDR).containsIP(self.gateway) && !ip(self.gateway).isLoopback()',
        message: 'gateway must be in podCIDR',
      },
      {
        rule: '!format.dns1123Label().validate(self.host).hasValue()',
        messageExpression: "format.dns1123Label().validate(self.host).value().join('; ')",
      },
    ],
    {
      endpoint: { type: 'string' },
      podCIDR: { type: 'string' },
      gateway: { type: 'string' },
      host: { type: 'string' },
    },
  );
  const spec = {
    endpoint: 'https://example.com/hook',
    podCIDR: '10.0.0.0/16',
    gateway: '10.0.0.1',
    host: 'web',
  };
  cluster.create(webApp(spec));
  assert.equal(
    invalid(() => cluster.create(webApp({ ...spec, endpoint: 'http://example.com' }, 'a'))),
    'WebApp.example.com "a" is invalid: spec: Invalid value: endpoint must be an https URL',
  );
  assert.equal(
    invalid(() => cluster.create(webApp({ ...spec, gateway: '10.1.0.1' }, 'b'))),
    'WebApp.example.com "b" is invalid: spec: Invalid value: gateway must be in podCIDR',
  );
  assert.equal(
    invalid(() => cluster.create(webApp({ ...spec, gateway: 'nope' }, 'c'))),
    'WebApp.example.com "c" is invalid: spec: Invalid value: "object": IP Address "nope" parse error during conversion from string: ParseAddr("nope"): unable to parse IP evaluating rule: gateway must be in podCIDR',
  );
  assert.match(
    invalid(() => cluster.create(webApp({ ...spec, host: 'Web' }, 'd'))),
    /^WebApp\.example\.com "d" is invalid: spec: Invalid value: a lowercase RFC 1123 label must consist of/,
  );
  cluster.close();
});

test('the semver library, added to the environment in 1.33, is an undeclared reference in 1.32', () => {
  const { cluster } = newCluster({ controllers: false });
  assert.match(
    invalid(() => cluster.create(webAppCrd([{ rule: "isSemver('1.0.0')" }]))),
    /compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' \(in container ''\)/,
  );
  cluster.close();
});

test('the quantity library compares, adds and converts quantities', () => {
  const cluster = withCrd(
    [
      {
        rule: "quantity(self.memory).isLessThan(quantity('4Gi')) && quantity(self.memory).compareTo(quantity('512Mi')) >= 0",
        message: 'memory must be within [512Mi, 4Gi)',
      },
      { rule: "quantity('1Gi') == quantity('1024Mi') && quantity('1').add(1).asInteger() == 2" },
      {
        rule: "isQuantity('500m') && !isQuantity('5 apples') && quantity('1.5').asApproximateFloat() == 1.5",
      },
      {
        rule: "!quantity('500m').isInteger() && quantity('-1').sign() == -1 && quantity('2Gi').sub(quantity('1Gi')).isGreaterThan(quantity('1G'))",
      },
    ],
    { memory: { type: 'string' } },
  );
  cluster.create(webApp({ memory: '1Gi' }));
  assert.equal(
    invalid(() => cluster.create(webApp({ memory: '8Gi' }, 'big'))),
    'WebApp.example.com "big" is invalid: spec: Invalid value: memory must be within [512Mi, 4Gi)',
  );
  assert.equal(
    invalid(() => cluster.create(webApp({ memory: 'lots' }, 'lots'))),
    `WebApp.example.com "lots" is invalid: spec: Invalid value: "object": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: memory must be within [512Mi, 4Gi)`,
  );
  cluster.close();
});

test("the sample operator's XValidation marker, as controller-gen writes it, guards its WebApps", () => {
  const { cluster } = newCluster({ controllers: false });
  const crd = join(
    __dirname,
    '..',
    '..',
    '..',
    'samples',
    'quota-operator',
    'config',
    'crd',
    'bases',
  );
  assert.deepEqual(loadManifests(cluster, [crd]).errors, []);
  const app = (image: string): KubeObject => ({
    apiVersion: 'apps.example.com/v1',
    kind: 'WebApp',
    metadata: { name: 'shop', namespace: 'default' },
    spec: { image },
  });
  assert.equal(
    invalid(() => cluster.create(app('nginx:1.27 '))),
    'WebApp.apps.example.com "shop" is invalid: spec.image: Invalid value: "nginx:1.27 ": image must not have leading or trailing whitespace',
  );
  assert.equal(cluster.create(app('nginx:1.27')).metadata.name, 'shop');
  cluster.close();
});

test('a 422 over HTTP carries the rule failure as kube-apiserver writes it', async () => {
  const s = await served();
  try {
    const crd = await s.call(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      webAppCrd(),
    );
    assert.equal(crd.status, 201, crd.body);
    const res = await s.call(
      'POST',
      '/apis/example.com/v1/namespaces/default/webapps',
      webApp({ minReplicas: 4, tls: { secretName: 'x' } }),
    );
    assert.equal(res.status, 422);
    assert.deepEqual(JSON.parse(res.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'WebApp.example.com "shop" is invalid: [spec: Invalid value: minReplicas must not exceed maxReplicas, spec.tls.secretName: Forbidden: secret x must start with tls-]',
      reason: 'Invalid',
      details: {
        name: 'shop',
        group: 'example.com',
        kind: 'WebApp',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: minReplicas must not exceed maxReplicas',
            field: 'spec',
          },
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: secret x must start with tls-',
            field: 'spec.tls.secretName',
          },
        ],
      },
      code: 422,
    });
  } finally {
    await s.close();
  }
});
