/**
 * authentication.k8s.io/v1's reviews, as kube-apiserver's `pkg/registry/authentication`
 * answers them: a TokenReview runs the request authenticator on a request carrying nothing but
 * the token (tokenreview/storage.go), a SelfSubjectReview tells the caller who it is
 * (selfsubjectreview/rest.go). Neither is stored.
 */
import {
  INVALID_BEARER_TOKEN,
  authenticateBearer,
  userInfoOf,
  type UserInfo,
} from './authentication';
import { newBadRequest } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

/** A review as answered: written as JSON, where Go's zero time is `null`. */
export type AnsweredReview = Record<string, unknown>;

/** TokenReviewStatus as encoding/json writes it: `user` is a struct, so never omitted. */
interface TokenReviewStatus {
  authenticated?: true;
  user: UserInfo | Record<string, never>;
  audiences?: string[];
  error?: string;
}

/**
 * The review, its status filled in. Audiences: the fake has no `--api-audiences`, so a review
 * naming none authenticates with no audience context (and its status has no audiences), while
 * one naming audiences meets the audience-agnostic token authenticator's empty intersection and
 * is not authenticated, with no error (audagnostic.go).
 */
export function tokenReview(obj: KubeObject, users: ReadonlyMap<string, string>): AnsweredReview {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw newBadRequest('token is required for TokenReview in authentication');
  const audiences = Array.isArray(spec.audiences) ? spec.audiences : [];
  let status: TokenReviewStatus;
  if (audiences.length > 0) status = { user: {} };
  else {
    const user = authenticateBearer(users, `Bearer ${token}`);
    status =
      user === undefined
        ? { user: {}, error: INVALID_BEARER_TOKEN }
        : { authenticated: true, user: userInfoOf(user) };
  }
  return { ...obj, metadata: { creationTimestamp: null, ...obj.metadata }, spec, status };
}

/** The requesting user's info, stamped with the time of the request. */
export function selfSubjectReview(obj: KubeObject, user: string, now: string): AnsweredReview {
  return {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    metadata: { creationTimestamp: now },
    status: { userInfo: userInfoOf(user) },
  };
}
