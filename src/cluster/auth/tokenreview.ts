/**
 * authentication.k8s.io/v1's reviews, as kube-apiserver's `pkg/registry/authentication`
 * answers them: a TokenReview runs the request authenticator on a request carrying nothing but
 * the token (tokenreview/storage.go), a SelfSubjectReview tells the caller who it is
 * (selfsubjectreview/rest.go). Neither is stored.
 */
import {
  INVALID_BEARER_TOKEN,
  aggregateMessage,
  type RequestAuthenticator,
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
 * The review, its status filled in. The token is authenticated for the review's audiences, or
 * the apiserver's when it names none. The authenticator the review runs is the generic server's
 * union of its loopback token authenticator (AuthorizeClientBearerToken) and the request
 * authenticator, so a token neither knows fails with the loopback's "invalid bearer token"
 * followed by the request authenticator's own error (the same words, once, for an unknown token).
 */
export function tokenReview(obj: KubeObject, authn: RequestAuthenticator): AnsweredReview {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw newBadRequest('token is required for TokenReview in authentication');
  const given = Array.isArray(spec.audiences)
    ? spec.audiences.filter((a): a is string => typeof a === 'string')
    : [];
  const audiences = given.length ? given : [...authn.apiAudiences];
  const a = authn.authenticateToken(token, audiences.length ? audiences : undefined);
  const status: TokenReviewStatus =
    'user' in a
      ? {
          authenticated: true,
          user: a.user,
          ...(a.audiences.length ? { audiences: a.audiences } : {}),
        }
      : { user: {}, error: aggregateMessage([INVALID_BEARER_TOKEN, a.error]) };
  return { ...obj, metadata: { ...obj.metadata }, spec, status };
}

/** The requesting user's info, stamped with the time of the request. */
export function selfSubjectReview(obj: KubeObject, user: UserInfo, now: string): AnsweredReview {
  return {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    metadata: { creationTimestamp: now },
    status: { userInfo: user },
  };
}
