/**
 * Who a request's bearer token names, as kube-apiserver's request authenticator
 * (pkg/kubeapiserver/authenticator/config.go) built from a `--token-auth-file` and service
 * account tokens: the bearer token authenticator over the union of
 * - the token file's users (a name, no uid, no groups of its own), audience-agnostic
 *   (`authenticator.WrapAudienceAgnosticToken` with the apiserver's audiences), and
 * - service account tokens (serviceaccounttoken.ts), which carry audiences of their own;
 * and the authenticated-group adder (`group.NewAuthenticatedGroupAdder`) appending
 * `system:authenticated` to whoever is authenticated.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServiceAccountTokens } from './serviceaccounttoken';
import { withAuthenticatedGroup, type UserInfo } from './user';

export { ALL_AUTHENTICATED, type UserInfo } from './user';

/** bearertoken.invalidToken: the error when no authenticator knows the token. */
export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** A token authenticated, or why not (the union's errors, as utilerrors' aggregate words them). */
export type Authentication = { user: UserInfo; audiences: string[] } | { error: string };

export class RequestAuthenticator {
  /**
   * `users`: token → user name, as a token file (read at each request: the server adds users
   * while it runs). `serviceAccounts`: the issuer of service account tokens, if the server has one.
   */
  constructor(
    private readonly users: ReadonlyMap<string, string>,
    private readonly serviceAccounts?: ServiceAccountTokens,
  ) {}

  /** `--api-audiences`: the service account issuer's, none without one. */
  get apiAudiences(): readonly string[] {
    return this.serviceAccounts?.apiAudiences ?? [];
  }

  /** The user of a request's `Authorization` header, undefined when it names none (401). */
  authenticateRequest(authorization: string): UserInfo | undefined {
    const token = bearerToken(authorization);
    if (token === undefined) return undefined;
    const a = this.authenticateToken(token);
    return 'user' in a ? a.user : undefined;
  }

  /**
   * The bearer token authenticator over the token union. `audiences`: the ones a TokenReview
   * asks about (none: a plain request, which accepts the apiserver's).
   */
  authenticateToken(token: string, audiences?: readonly string[]): Authentication {
    const errors: string[] = [];
    const fromFile = this.tokenFileUser(token);
    if (fromFile !== undefined) {
      // Audience-agnostic: it authenticates for the apiserver's audiences only.
      if (audiences === undefined)
        return { user: withAuthenticatedGroup({ username: fromFile, groups: [] }), audiences: [] };
      const auds = this.apiAudiences.filter((a) => audiences.includes(a));
      if (auds.length)
        return {
          user: withAuthenticatedGroup({ username: fromFile, groups: [] }),
          audiences: auds,
        };
    }
    const sa = this.serviceAccounts?.authenticate(token, audiences);
    if (sa?.handled) {
      if ('user' in sa) return { user: withAuthenticatedGroup(sa.user), audiences: sa.audiences };
      errors.push(sa.error);
    }
    // The token union's errors, or the bearer token authenticator's own when there are none.
    return { error: aggregateMessage(errors.length ? errors : [INVALID_BEARER_TOKEN]) };
  }

  /** The token file's user of `token`, comparing every known token in constant time. */
  private tokenFileUser(token: string): string | undefined {
    const given = Buffer.from(token);
    let found: string | undefined;
    for (const [known, user] of this.users) {
      const expected = Buffer.from(known);
      if (given.length === expected.length && timingSafeEqual(given, expected)) found = user;
    }
    return found;
  }
}

/**
 * bearertoken.Authenticator's reading of the header: `Bearer <token>` (the scheme in any case),
 * undefined when there is no token.
 */
export function bearerToken(authorization: string): string | undefined {
  const auth = authorization.trim();
  if (auth === '') return undefined;
  // strings.SplitN(auth, " ", 3)
  const first = auth.indexOf(' ');
  if (first < 0 || auth.slice(0, first).toLowerCase() !== 'bearer') return undefined;
  const rest = auth.slice(first + 1);
  const second = rest.indexOf(' ');
  const token = second < 0 ? rest : rest.slice(0, second);
  return token === '' ? undefined : token;
}

/**
 * utilerrors.NewAggregate(errs).Error(): the messages, duplicates dropped, one alone as it is,
 * more as `[a, b]`.
 */
export function aggregateMessage(messages: readonly string[]): string {
  const seen = [...new Set(messages)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}
