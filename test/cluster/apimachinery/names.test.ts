import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newCluster } from '../helpers';
import {
  isQualifiedName,
  isValidLabelValue,
  nameRuleOf,
  validateLabels,
  validateName,
} from '../../../src/cluster/apimachinery/names';

const NAME_PART =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

test('isQualifiedName gives every message of apimachinery for the prefix and the name part', () => {
  assert.deepEqual(isQualifiedName('example.com/MyName'), []);
  assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('example.com/'), [
    'name part must be non-empty',
    `name part ${NAME_PART}`,
  ]);
  assert.deepEqual(isQualifiedName(`${'a'.repeat(64)}`), [
    'name part must be no more than 63 characters',
  ]);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    `a qualified name ${NAME_PART} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
  ]);
  assert.match(isQualifiedName('Bad_Prefix/x')[0]!, /^prefix part a lowercase RFC 1123 subdomain/);
});

test('a label value may be empty; a long value with a bad end gets both messages', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue(`${'a'.repeat(63)}-`).length, 2);
});

test('validateLabels reports one field error per message, on the key or the value', () => {
  const errs = validateLabels({ 'example.com/': 'ok', good: '-bad' });
  assert.deepEqual(
    errs.map((e) => e.message.slice(0, 60)),
    [
      'Invalid value: "example.com/": name part must be non-empty',
      `Invalid value: "example.com/": name part ${NAME_PART}`.slice(0, 60),
      'Invalid value: "-bad": a valid label must be an empty string',
    ],
  );
});

test('each kind checks its name as its validation in the pinned release does', () => {
  assert.equal(nameRuleOf('rbac.authorization.k8s.io', 'ClusterRole'), 'pathSegment');
  assert.equal(nameRuleOf('', 'Namespace'), 'label');
  assert.equal(nameRuleOf('apps', 'StatefulSet'), 'label');
  assert.equal(nameRuleOf('apps', 'Deployment'), 'subdomain');
  assert.equal(nameRuleOf('certificates.k8s.io', 'CertificateSigningRequest'), 'any');
  assert.equal(nameRuleOf('example.com', 'Widget'), 'subdomain', 'a kind nobody declares');
});

test('an RBAC name is a path segment: colons allowed, slashes and dot names not', () => {
  assert.deepEqual(validateName('system:aggregate-to-admin', 'pathSegment'), []);
  assert.deepEqual(validateName('..', 'pathSegment'), ["may not be '..'"]);
  assert.deepEqual(validateName('a/b%c', 'pathSegment'), [
    "may not contain '/'",
    "may not contain '%'",
  ]);
});

test('a ClusterRole named as Kubernetes names its own (system:…) is created', () => {
  const { cluster } = newCluster({ controllers: false });
  const got = cluster.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'system:aggregate-to-view' },
    rules: [],
  });
  assert.equal(got.metadata.name, 'system:aggregate-to-view');
});
