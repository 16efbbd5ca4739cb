/**
 * The authentication and authorization review APIs over HTTP, answered as kube-apiserver with a
 * token file and `--authorization-mode=AlwaysAllow` answers them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { GO_OPERATOR_USER } from '../../../src/runtime/goprocess';
import { DEFAULT_USER } from '../../../src/cluster/endpoints/server';
import { served } from '../http';
import type { Served } from '../http';

let s: Served;
before(async () => {
  s = await served({ users: { 'manager-token': 'system:serviceaccount:sys:manager' } });
});
after(() => s.close());

const AUTHN = '/apis/authentication.k8s.io/v1';
const AUTHZ = '/apis/authorization.k8s.io/v1';
const json = (body: string) => JSON.parse(body) as Record<string, unknown>;
const post = async (path: string, body: unknown) => {
  const r = await s.call('POST', path, body);
  return { status: r.status, body: json(r.body) };
};

describe('TokenReview', () => {
  const review = (spec: object) => ({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec,
  });

  it("authenticates a known token as its user, in system:authenticated, for the apiserver's audiences", async () => {
    const r = await post(`${AUTHN}/tokenreviews`, review({ token: 'manager-token' }));
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status, {
      authenticated: true,
      user: { username: 'system:serviceaccount:sys:manager', groups: ['system:authenticated'] },
      // --api-audiences default to the service account issuer: the server's URL.
      audiences: [s.server.url],
    });
    assert.deepEqual(r.body.spec, { token: 'manager-token' });
  });

  it('authenticates the server token as the default user', async () => {
    const r = await post(`${AUTHN}/tokenreviews`, review({ token: s.server.token }));
    assert.equal((r.body.status as { user: { username: string } }).user.username, DEFAULT_USER);
  });

  it('authenticates a token given a user with addUser after the server started', async () => {
    const token = s.server.addUser('late-user');
    const r = await post(`${AUTHN}/tokenreviews`, review({ token }));
    assert.equal((r.body.status as { user: { username: string } }).user.username, 'late-user');
  });

  it("answers an unknown token with authenticated unset, an empty user and the bearer token authenticator's error", async () => {
    const r = await post(`${AUTHN}/tokenreviews`, review({ token: 'nope' }));
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status, { user: {}, error: 'invalid bearer token' });
  });

  it("does not authenticate a token file user for audiences other than the apiserver's", async () => {
    const r = await post(
      `${AUTHN}/tokenreviews`,
      review({ token: 'manager-token', audiences: ['https://kubernetes.default.svc'] }),
    );
    assert.deepEqual(r.body.status, { user: {}, error: 'invalid bearer token' });
  });

  it("authenticates a token file user for a review naming the apiserver's audience among others", async () => {
    const r = await post(
      `${AUTHN}/tokenreviews`,
      review({ token: 'manager-token', audiences: ['other', s.server.url] }),
    );
    assert.deepEqual((r.body.status as { audiences: string[] }).audiences, [s.server.url]);
  });

  it('refuses a review without a token with the 400 of the apiserver', async () => {
    const r = await post(`${AUTHN}/tokenreviews`, review({}));
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'token is required for TokenReview in authentication');
  });

  it('serves only create: a GET is 405, a namespaced path 404', async () => {
    assert.equal((await s.get(`${AUTHN}/tokenreviews`)).status, 405);
    assert.equal((await s.get(`${AUTHN}/namespaces/default/tokenreviews`)).status, 404);
  });

  it('stores nothing', async () => {
    await post(`${AUTHN}/tokenreviews`, review({ token: 'manager-token' }));
    assert.equal(
      s.cluster.resources().some((r) => r.kind === 'TokenReview'),
      false,
    );
  });
});

describe("a Go manager's secure metrics (filters.WithAuthenticationAndAuthorization)", () => {
  it("authenticates a scrape's token and authorizes its user, asked with the manager's own token", async () => {
    // The editor gives the manager a user of its own and writes it a kubeconfig with its token.
    s.server.addUser(GO_OPERATOR_USER);
    const config = YAML.parse(s.server.kubeconfig('reconcile-studio', GO_OPERATOR_USER)) as {
      users: { user: { token: string } }[];
    };
    const managerToken = config.users[0].user.token;
    const asManager = async (path: string, body: object) => {
      const r = await s.call('POST', path, body, { authorization: `Bearer ${managerToken}` });
      return { status: r.status, body: json(r.body) };
    };
    const who = await asManager(`${AUTHN}/selfsubjectreviews`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    assert.equal(
      (who.body.status as { userInfo: { username: string } }).userInfo.username,
      GO_OPERATOR_USER,
    );
    // The scraper presents the manager's token too (as a kubeconfig's user would).
    const tr = await asManager(`${AUTHN}/tokenreviews`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: managerToken },
    });
    const user = (tr.body.status as { user: { username: string; groups: string[] } }).user;
    assert.equal(user.username, GO_OPERATOR_USER);
    const sar = await asManager(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: user.username,
        groups: user.groups,
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      },
    });
    assert.equal(sar.status, 201);
    assert.deepEqual(sar.body.status, { allowed: true });
  });
});

describe('SelfSubjectReview', () => {
  it('tells the requesting user who it is', async () => {
    const r = await post(`${AUTHN}/selfsubjectreviews`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, 'SelfSubjectReview');
    assert.deepEqual(r.body.status, {
      userInfo: { username: DEFAULT_USER, groups: ['system:authenticated'] },
    });
    assert.match(
      String((r.body.metadata as { creationTimestamp: string }).creationTimestamp),
      /Z$/,
    );
  });
});

describe('SubjectAccessReview and its kin (AlwaysAllow)', () => {
  const resourceAttributes = {
    verb: 'create',
    group: 'apps',
    resource: 'deployments',
    namespace: 'default',
  };

  it('allows a SelfSubjectAccessReview with no reason, as AlwaysAllow does', async () => {
    const r = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status, { allowed: true });
    assert.deepEqual(r.body.spec, { resourceAttributes });
  });

  it('allows the SubjectAccessReview a metrics filter sends for a scrape', async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'prometheus',
        groups: ['system:authenticated'],
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status, { allowed: true });
  });

  it('refuses a SubjectAccessReview with neither attributes nor a subject, both errors listed', async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {},
    });
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
  });

  it('refuses both kinds of attributes at once', async () => {
    const r = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes, nonResourceAttributes: { path: '/metrics', verb: 'get' } },
    });
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/metrics", Verb:"get"}: cannot be specified in combination with resourceAttributes',
    );
  });

  it('refuses a field selector given both raw and as requirements', async () => {
    const r = await post(`${AUTHZ}/selfsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: {
          ...resourceAttributes,
          fieldSelector: {
            rawSelector: 'a=b',
            requirements: [{ key: 'a', operator: 'In', values: ['b'] }],
          },
        },
      },
    });
    assert.equal(r.status, 422);
    assert.match(
      String(r.body.message),
      /spec\.resourceAttributes\.fieldSelector\.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements/,
    );
  });

  it('refuses a SubjectAccessReview with metadata', async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { name: 'x' },
      spec: { user: 'u', resourceAttributes },
    });
    assert.equal(r.status, 422);
    assert.match(String(r.body.message), /metadata: Invalid value: .*: must be empty$/);
  });

  it("allows a LocalSubjectAccessReview of the URL's namespace, answered in it", async () => {
    const r = await post(`${AUTHZ}/namespaces/default/localsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      spec: { user: 'u', resourceAttributes },
    });
    assert.equal(r.status, 201);
    assert.equal((r.body.metadata as { namespace: string }).namespace, 'default');
    assert.deepEqual(r.body.status, { allowed: true });
  });

  it('refuses a LocalSubjectAccessReview whose spec names another namespace than the URL', async () => {
    const r = await post(`${AUTHZ}/namespaces/other/localsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      spec: { user: 'u', resourceAttributes },
    });
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "default": must match metadata.namespace',
    );
  });

  it('refuses a LocalSubjectAccessReview whose metadata names another namespace than the URL', async () => {
    const r = await post(`${AUTHZ}/namespaces/other/localsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      metadata: { namespace: 'default' },
      spec: { user: 'u', resourceAttributes },
    });
    assert.equal(r.status, 400);
    assert.equal(
      r.body.message,
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  });

  it('refuses non-resource attributes in a LocalSubjectAccessReview', async () => {
    const r = await post(`${AUTHZ}/namespaces/default/localsubjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      spec: { user: 'u', nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    });
    assert.equal(r.status, 422);
    assert.match(
      String(r.body.message),
      /spec\.nonResourceAttributes: .*: disallowed on this kind of request/,
    );
  });

  it('has no cluster-wide LocalSubjectAccessReview path', async () => {
    const r = await s.call('POST', `${AUTHZ}/localsubjectaccessreviews`, {});
    assert.equal(r.status, 404);
  });

  it("gives AlwaysAllow's rules for a SelfSubjectRulesReview: everything, complete", async () => {
    const r = await post(`${AUTHZ}/selfsubjectrulesreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'default' },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body.status, {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });

  it('answers a SubjectAccessReview with the managedFields the create gave it, and no creationTimestamp', async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews?fieldManager=checker`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'nobody',
        resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' },
      },
    });
    assert.equal(r.status, 201);
    const md = r.body.metadata as Record<string, unknown>;
    assert.equal('creationTimestamp' in md, false);
    const [entry] = md.managedFields as Array<Record<string, unknown>>;
    assert.equal(entry.manager, 'checker');
    assert.equal(entry.operation, 'Update');
    assert.equal(entry.apiVersion, 'authorization.k8s.io/v1');
    assert.deepEqual(entry.fieldsV1, {
      'f:spec': {
        'f:resourceAttributes': { '.': {}, 'f:namespace': {}, 'f:resource': {}, 'f:verb': {} },
        'f:user': {},
      },
    });
  });

  it('answers a SelfSubjectRulesReview with a new object: no managedFields', async () => {
    const r = await post(`${AUTHZ}/selfsubjectrulesreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: 'default' },
    });
    assert.deepEqual(r.body.metadata, {});
  });

  it('refuses a SelfSubjectRulesReview without a namespace', async () => {
    const r = await post(`${AUTHZ}/selfsubjectrulesreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: {},
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'no namespace on request');
  });

  it('refuses a body of another kind than the URL', async () => {
    const r = await post(`${AUTHZ}/subjectaccessreviews`, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {},
    });
    assert.equal(r.status, 400);
  });
});

describe('review discovery', () => {
  it('lists the reviews with the create verb only, without a storage version hash', async () => {
    const r = json((await s.get(AUTHZ)).body) as { resources: Record<string, unknown>[] };
    assert.deepEqual(
      r.resources.map((x) => [x.name, x.namespaced, x.verbs, 'storageVersionHash' in x]),
      [
        ['localsubjectaccessreviews', true, ['create'], false],
        ['selfsubjectaccessreviews', false, ['create'], false],
        ['selfsubjectrulesreviews', false, ['create'], false],
        ['subjectaccessreviews', false, ['create'], false],
      ],
    );
    const groups = json((await s.get('/apis')).body) as { groups: { name: string }[] };
    const names = groups.groups.map((g) => g.name);
    assert.ok(names.includes('authentication.k8s.io') && names.includes('authorization.k8s.io'));
  });

  it('lists them in aggregated discovery', async () => {
    const r = await s.get('/apis', {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const doc = json(r.body) as {
      items: {
        metadata: { name: string };
        versions: { resources: { resource: string; verbs: string[]; scope: string }[] }[];
      }[];
    };
    const authn = doc.items.find((i) => i.metadata.name === 'authentication.k8s.io');
    assert.deepEqual(
      authn?.versions[0].resources.map((x) => [x.resource, x.scope, x.verbs]),
      [
        ['selfsubjectreviews', 'Cluster', ['create']],
        ['tokenreviews', 'Cluster', ['create']],
      ],
    );
  });
});
