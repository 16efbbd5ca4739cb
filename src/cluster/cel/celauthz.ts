/**
 * Kubernetes' CEL authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go), declared in
 * admission CEL (policies' validations and matchConditions, webhooks' matchConditions) as the
 * `authorizer` variable and `authorizer.requestResource`: `authorizer.group(g).resource(r)
 * .subresource(s).namespace(ns).name(n).check(verb)`, `authorizer.path(p).check(verb)`,
 * `authorizer.serviceAccount(ns, name)`, and a Decision's `allowed()`, `reason()`, `errored()`,
 * `error()`. The fake authorizes as kube-apiserver with `--authorization-mode=AlwaysAllow`
 * (auth/subjectaccessreview.ts): every check is allowed, with no reason and no error.
 */
import type { CelMap, CelValue } from '@bufbuild/cel';
import { CelScalar, celMap, celMethod, isCelMap } from '@bufbuild/cel';
import { OPAQUE, expect, opaqueType } from './celopaque';

const { BOOL, STRING } = CelScalar;

/** A check being built: what a SubjectAccessReview would ask. */
interface Check {
  kind: 'path' | 'group' | 'resource';
  attributes: Record<string, string>;
}

interface Decision {
  allowed: boolean;
  reason: string;
  error: string;
}

// Opaque values hold CEL values: a check and a decision are kept as their JSON text.
const CHECK_TYPE = opaqueType<string>('authz.Check');
const DECISION_TYPE = opaqueType<string>('authz.Decision');
const CHECK = {
  wrap: (c: Check) => CHECK_TYPE.wrap(JSON.stringify(c)),
  read: (v: CelValue) => JSON.parse(expect(CHECK_TYPE, v)) as Check,
};
const DECISION = {
  wrap: (d: Decision) => DECISION_TYPE.wrap(JSON.stringify(d)),
  read: (v: CelValue) => JSON.parse(expect(DECISION_TYPE, v)) as Decision,
};
const AUTHORIZER_KEY = '\u0000authz.Authorizer';

/** authorizerfactory.NewAlwaysAllowAuthorizer's answer to any check. */
const ALWAYS_ALLOW: Decision = { allowed: true, reason: '', error: '' };

function authorizerOf(v: CelValue): string {
  if (isCelMap(v) && v.has(AUTHORIZER_KEY)) return String(v.get(AUTHORIZER_KEY));
  throw new Error('no such overload');
}

/**
 * The `authorizer` variable for a request by `username` (the admission request's user), its
 * `requestResource` the check of the request's own resource.
 */
export function authorizerFor(
  username: string,
  request: {
    group: string;
    resource: string;
    subresource: string;
    namespace: string;
    name: string;
  },
): CelMap {
  return celMap(
    new Map<string, CelValue>([
      [AUTHORIZER_KEY, username],
      [
        'requestResource',
        CHECK.wrap({
          kind: 'resource',
          attributes: {
            group: request.group,
            resource: request.resource,
            subresource: request.subresource,
            namespace: request.namespace,
            name: request.name,
          },
        }),
      ],
    ]),
  );
}

/** A ResourceCheck (or GroupCheck) method that sets one attribute. */
const attribute = (method: string, from: Array<Check['kind']>, to: Check['kind']) =>
  celMethod(method, OPAQUE, [STRING], OPAQUE, function (value) {
    const c = CHECK.read(this);
    if (!from.includes(c.kind)) throw new Error('no such overload');
    return CHECK.wrap({ kind: to, attributes: { ...c.attributes, [method]: value } });
  });

const decision = <R extends typeof BOOL | typeof STRING>(
  method: string,
  result: R,
  read: (d: Decision) => boolean | string,
) =>
  celMethod(method, OPAQUE, [], result, function () {
    return read(DECISION.read(this)) as never;
  });

export const authzLibrary = [
  celMethod('path', OPAQUE, [STRING], OPAQUE, function (path) {
    authorizerOf(this);
    return CHECK.wrap({ kind: 'path', attributes: { path } });
  }),
  celMethod('group', OPAQUE, [STRING], OPAQUE, function (group) {
    authorizerOf(this);
    return CHECK.wrap({ kind: 'group', attributes: { group } });
  }),
  celMethod('serviceAccount', OPAQUE, [STRING, STRING], OPAQUE, function (namespace, name) {
    authorizerOf(this);
    return authorizerFor(`system:serviceaccount:${namespace}:${name}`, {
      group: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
    });
  }),
  attribute('resource', ['group'], 'resource'),
  attribute('subresource', ['resource'], 'resource'),
  attribute('namespace', ['resource'], 'resource'),
  attribute('name', ['resource'], 'resource'),
  attribute('fieldSelector', ['resource'], 'resource'),
  attribute('labelSelector', ['resource'], 'resource'),
  celMethod('check', OPAQUE, [STRING], OPAQUE, function () {
    const c = CHECK.read(this);
    if (c.kind === 'group') throw new Error('no such overload');
    return DECISION.wrap(ALWAYS_ALLOW);
  }),
  decision('allowed', BOOL, (d) => d.allowed),
  decision('reason', STRING, (d) => d.reason),
  decision('errored', BOOL, (d) => d.error !== ''),
  decision('error', STRING, (d) => d.error),
];
