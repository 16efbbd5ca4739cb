/**
 * Who a bearer token names, as kube-apiserver's request authenticator built from a
 * `--token-auth-file` alone: the token file's user (a name, no uid, no groups of its own), to
 * which the authenticated-group adder (`group.NewAuthenticatedGroupAdder`) appends
 * `system:authenticated`. The token authenticator is audience-agnostic and the fake has no
 * `--api-audiences`, so a request naming audiences authenticates no one
 * (`authenticator.WrapAudienceAgnosticToken` with no implicit audiences).
 */
import { timingSafeEqual } from 'node:crypto';

/** user.AllAuthenticated */
export const ALL_AUTHENTICATED = 'system:authenticated';

/** authentication.k8s.io/v1 UserInfo as the apiserver fills it for a token-file user. */
export interface UserInfo {
  username: string;
  groups: string[];
}

export function userInfoOf(username: string): UserInfo {
  return { username, groups: [ALL_AUTHENTICATED] };
}

/** bearertoken.invalidToken: an unknown token's error, as a TokenReview reports it. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/**
 * The user an `Authorization` header's `Bearer` token names (undefined: none), comparing every
 * known token in constant time, so the time taken does not tell how much of a token matched.
 */
export function authenticateBearer(
  users: ReadonlyMap<string, string>,
  authorization: string,
): string | undefined {
  const given = Buffer.from(authorization);
  let found: string | undefined;
  for (const [token, user] of users) {
    const expected = Buffer.from(`Bearer ${token}`);
    if (given.length === expected.length && timingSafeEqual(given, expected)) found = user;
  }
  return found;
}
