/**
 * The review endpoints of authentication.k8s.io and authorization.k8s.io, served as
 * kube-apiserver's create handler serves a storage that only creates: POST a review, get it
 * back answered (201), nothing stored. Only the served cluster has them — a review is about the
 * request's bearer token and user, which in-process callers have none of.
 */
import { adoptRequestNamespace, checkKind } from '../endpoints/decode';
import { newMethodNotSupported, newNotFoundPath } from '../apimachinery/errors';
import { reviewTypes, type ResourceType } from '../registry/registry';
import {
  localSubjectAccessReview,
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  subjectAccessReview,
} from './subjectaccessreview';
import { selfSubjectReview, tokenReview, type AnsweredReview } from './tokenreview';
import type { KubeObject } from '../apimachinery/types';
import { recordManagedFields } from '../managedfields/fieldmanager';
import type { RequestAuthenticator, UserInfo } from './authentication';

export interface ReviewRoute {
  t: ResourceType;
  namespace?: string;
}

/**
 * The review a path under `/apis/<apiVersion>/` names: `<plural>` for the cluster-scoped
 * ones, `namespaces/<ns>/<plural>` for LocalSubjectAccessReview; other forms are no route (404).
 */
export function resolveReview(apiVersion: string, rest: string[]): ReviewRoute | undefined {
  const [plural, namespace] =
    rest.length === 3 && rest[0] === 'namespaces' ? [rest[2], rest[1]] : [rest[0], undefined];
  const t = reviewTypes().find((r) => r.apiVersion === apiVersion && r.info.plural === plural);
  if (!t) return undefined;
  if (rest.length !== (t.info.namespaced ? 3 : 1) || (t.info.namespaced && !namespace))
    throw newNotFoundPath();
  return { t, namespace };
}

/** Who is asking, and how the server authenticates others' tokens. */
export interface ReviewContext {
  user: UserInfo;
  authenticator: RequestAuthenticator;
  now: string;
  /** The request's field manager (its fieldManager option or user agent). */
  fieldManager: string;
}

/**
 * The reviews whose storage answers with the request object itself (TokenReview, the
 * SubjectAccessReviews): it keeps the managedFields the create handler's field manager gave it,
 * as every create does. SelfSubjectReview and SelfSubjectRulesReview answer with a new object.
 */
const ANSWERED_IN_PLACE = new Set([
  'TokenReview',
  'SubjectAccessReview',
  'SelfSubjectAccessReview',
  'LocalSubjectAccessReview',
]);

/** The answered review of a request with `method` and the decoded body `obj`. */
export function answerReview(
  route: ReviewRoute,
  method: string,
  obj: () => KubeObject,
  ctx: ReviewContext,
): AnsweredReview {
  const { t, namespace } = route;
  if (method !== 'POST') throw newMethodNotSupported(t.gr, method.toLowerCase());
  const review = obj();
  checkKind(review, t);
  adoptRequestNamespace(review, t, namespace);
  if (ANSWERED_IN_PLACE.has(t.info.kind))
    recordManagedFields(
      review,
      undefined,
      ctx.fieldManager,
      'Update',
      t.apiVersion,
      ctx.now,
      undefined,
    );
  switch (t.info.kind) {
    case 'TokenReview':
      return tokenReview(review, ctx.authenticator);
    case 'SelfSubjectReview':
      return selfSubjectReview(review, ctx.user, ctx.now);
    case 'SubjectAccessReview':
      return subjectAccessReview(review);
    case 'SelfSubjectAccessReview':
      return selfSubjectAccessReview(review);
    case 'LocalSubjectAccessReview':
      return localSubjectAccessReview(review);
    default:
      return selfSubjectRulesReview(review);
  }
}
