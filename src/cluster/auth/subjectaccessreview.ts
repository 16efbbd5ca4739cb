/**
 * authorization.k8s.io/v1's reviews, as kube-apiserver's `pkg/registry/authorization` answers
 * them, validated as `pkg/apis/authorization/validation` does. The fake enforces no RBAC: it
 * authorizes as kube-apiserver with `--authorization-mode=AlwaysAllow`, whose authorizer
 * (authorizerfactory.NewAlwaysAllowAuthorizer) allows every request with no reason and, asked
 * for a user's rules, gives one rule allowing every verb on every resource and one on every
 * non-resource URL, complete. None of the reviews is stored.
 */
import {
  RawValue,
  fieldInvalid,
  fieldRequired,
  newBadRequest,
  newInvalid,
  type FieldError,
} from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { AnsweredReview } from './tokenreview';
import type { KubeObject } from '../apimachinery/types';

const GROUP = 'authorization.k8s.io';

/** `v` when it is a JSON object (a decoded struct), else undefined (nil). */
function objectOr(v: unknown): Record<string, unknown> | undefined {
  return isObject(v) ? v : undefined;
}

/** Go's zero value: what decodes to an ObjectMeta field left unset. */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  const o = objectOr(v);
  return o !== undefined && Object.keys(o).length === 0;
}

/** `metadata` must be empty (managedFields aside, and `except`'s fields). */
function metadataErrors(obj: KubeObject, except: string[], detail: string): FieldError[] {
  const ignored = new Set(['managedFields', ...except]);
  const set = Object.entries(obj.metadata).some(([k, v]) => !ignored.has(k) && !isZero(v));
  return set ? [fieldInvalid('metadata', obj.metadata, detail)] : [];
}

/** validateFieldSelectorAttributes / validateLabelSelectorAttributes: one of the two forms. */
function selectorErrors(selector: unknown, path: string): FieldError[] {
  const s = objectOr(selector);
  if (s === undefined) return [];
  const raw = typeof s.rawSelector === 'string' ? s.rawSelector : '';
  const requirements = Array.isArray(s.requirements) ? s.requirements : [];
  if (raw && requirements.length)
    return [
      fieldInvalid(
        `${path}.rawSelector`,
        raw,
        'may not specified at the same time as requirements',
      ),
    ];
  if (!raw && !requirements.length)
    return [
      fieldRequired(
        `${path}.requirements`,
        `when ${path} is specified, requirements or rawSelector is required`,
      ),
    ];
  return [];
}

/** Go's %#v of a NonResourceAttributes, as field.Invalid prints the value. */
function nonResourceValue(a: Record<string, unknown>): RawValue {
  const str = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');
  return new RawValue(
    `authorization.NonResourceAttributes{Path:${str(a.path)}, Verb:${str(a.verb)}}`,
  );
}

/**
 * ValidateSubjectAccessReviewSpec (`subject`: a user or groups to check are required) and
 * ValidateSelfSubjectAccessReviewSpec, in their order.
 */
function specErrors(spec: Record<string, unknown>, subject: boolean): FieldError[] {
  const resource = objectOr(spec.resourceAttributes);
  const nonResource = objectOr(spec.nonResourceAttributes);
  const errs: FieldError[] = [];
  if (resource && nonResource)
    errs.push(
      fieldInvalid(
        'spec.nonResourceAttributes',
        nonResourceValue(nonResource),
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  if (!resource && !nonResource)
    errs.push(
      fieldInvalid(
        'spec.resourceAttributes',
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  const user = typeof spec.user === 'string' ? spec.user : '';
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (subject && !user && !groups.length)
    errs.push(fieldInvalid('spec.user', user, 'at least one of user or group must be specified'));
  if (resource) {
    errs.push(...selectorErrors(resource.fieldSelector, 'spec.resourceAttributes.fieldSelector'));
    errs.push(...selectorErrors(resource.labelSelector, 'spec.resourceAttributes.labelSelector'));
  }
  return errs;
}

/**
 * The kind an invalid review is reported as: the decoded internal object carries no kind, so
 * kube-apiserver names it by its group alone (`.authorization.k8s.io "" is invalid: …`).
 */
function check(errs: FieldError[]): void {
  if (errs.length) throw newInvalid({ group: GROUP, kind: '' }, '', errs);
}

/** AlwaysAllow's decision, as SubjectAccessReviewStatus carries it (no reason, not denied). */
function allowed(obj: KubeObject, spec: Record<string, unknown>): AnsweredReview {
  return {
    ...obj,
    metadata: { ...obj.metadata },
    spec,
    status: { allowed: true },
  };
}

export function subjectAccessReview(obj: KubeObject): AnsweredReview {
  const spec = objectOr(obj.spec) ?? {};
  check([...specErrors(spec, true), ...metadataErrors(obj, [], 'must be empty')]);
  return allowed(obj, spec);
}

export function selfSubjectAccessReview(obj: KubeObject): AnsweredReview {
  const spec = objectOr(obj.spec) ?? {};
  check([...specErrors(spec, false), ...metadataErrors(obj, [], 'must be empty')]);
  return allowed(obj, spec);
}

/**
 * A namespaced SubjectAccessReview. Its metadata.namespace is the URL's by then (the create
 * handler adopted it), so a spec naming another namespace fails validation here.
 */
export function localSubjectAccessReview(obj: KubeObject): AnsweredReview {
  const spec = objectOr(obj.spec) ?? {};
  const namespace = obj.metadata.namespace ?? '';
  const errs = [
    ...specErrors(spec, true),
    ...metadataErrors(obj, ['namespace'], 'must be empty except for namespace'),
  ];
  const resource = objectOr(spec.resourceAttributes);
  const specNamespace = typeof resource?.namespace === 'string' ? resource.namespace : '';
  if (resource && specNamespace !== namespace)
    errs.push(
      fieldInvalid(
        'spec.resourceAttributes.namespace',
        specNamespace,
        'must match metadata.namespace',
      ),
    );
  const nonResource = objectOr(spec.nonResourceAttributes);
  if (nonResource)
    errs.push(
      fieldInvalid(
        'spec.nonResourceAttributes',
        nonResourceValue(nonResource),
        'disallowed on this kind of request',
      ),
    );
  check(errs);
  return allowed(obj, spec);
}

/** AlwaysAllow's RulesFor: everything, and nothing left out. */
export function selfSubjectRulesReview(obj: KubeObject): AnsweredReview {
  const spec = objectOr(obj.spec) ?? {};
  if (typeof spec.namespace !== 'string' || spec.namespace === '')
    throw newBadRequest('no namespace on request');
  return {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    metadata: {},
    spec: {},
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    },
  };
}
