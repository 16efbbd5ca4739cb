/**
 * Service account tokens, as kube-apiserver issues and checks them (kubernetes
 * `pkg/serviceaccount`: claims.go, jwt.go): a JWT signed with a key generated when the server
 * starts, issued by the server's URL, for the apiserver's audiences unless the TokenRequest names
 * others; authenticated by its issuer, signature, audiences and times, and only while the
 * service account (and the pod, secret or node it is bound to) still exists with the UID the
 * token names.
 */
import { randomUUID } from 'node:crypto';
import { parseToken, signToken, verifyToken, generateSigningKey, type SigningKey } from './jwt';
import type { ServiceAccountInfo } from './user';
import { serviceAccountUserInfo, serviceAccountUsername, type UserInfo } from './user';
import { newNotFound } from '../apimachinery/errors';
import type { KubeObject, ObjectKey, TypeRef } from '../apimachinery/types';

/** legacy.go's LegacyIssuer, and the prefix of its private claims. */
const LEGACY_ISSUER = 'kubernetes/serviceaccount';
const LEGACY_PREFIX = 'kubernetes.io/serviceaccount/';

/** go-jose's jwt.DefaultLeeway: the slack allowed on times, in seconds. */
const LEEWAY_SECONDS = 60;

/** The reads a token's validation makes (the cluster's `peek`). */
export interface TokenGetter {
  peek(type: TypeRef, key: ObjectKey): KubeObject | undefined;
}

const SERVICE_ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const NODE = { apiVersion: 'v1', kind: 'Node' };

/** An object a token is bound to, as the `kubernetes.io` claim names it (ref: both omitempty). */
export interface BoundRef {
  name: string;
  uid?: string;
}

/** What a token is issued for (claims.go's Claims arguments). */
export interface TokenSubject {
  namespace: string;
  name: string;
  uid: string;
  pod?: BoundRef;
  /** A pod's node (with the pod), or the node the token is bound to. */
  node?: BoundRef;
  secret?: BoundRef;
}

/** What authenticating a token came to (authenticator.Token's three answers). */
export type TokenAuthentication =
  | { handled: false }
  | { handled: true; error: string }
  | { handled: true; user: UserInfo; audiences: string[] };

export class ServiceAccountTokens {
  readonly key: SigningKey;

  /**
   * `issuer`: `--service-account-issuer`; `apiAudiences`: `--api-audiences`, which default to the
   * issuer. `nowMs`: the cluster's clock.
   */
  constructor(
    readonly issuer: string,
    readonly apiAudiences: readonly string[],
    private readonly getter: TokenGetter,
    private readonly nowMs: () => number,
    key?: SigningKey,
  ) {
    this.key = key ?? generateSigningKey();
  }

  /**
   * A signed token for `subject`, valid for `expirationSeconds` from now (claims.go's Claims and
   * jwt.go's GenerateToken): private claims first, then the public ones, then the issuer.
   * `warnAfterSeconds`: when a token given a longer life should have been refreshed.
   */
  issue(
    subject: TokenSubject,
    expirationSeconds: number,
    audiences: readonly string[],
    warnAfterSeconds?: number,
  ): string {
    const now = Math.floor(this.nowMs() / 1000);
    const k8s: Record<string, unknown> = {
      namespace: subject.namespace,
      serviceaccount: ref({ name: subject.name, uid: subject.uid }),
    };
    if (subject.pod) k8s.pod = ref(subject.pod);
    if (subject.secret) k8s.secret = ref(subject.secret);
    if (subject.node) k8s.node = ref(subject.node);
    if (warnAfterSeconds) k8s.warnafter = now + warnAfterSeconds;
    return signToken(this.key, {
      'kubernetes.io': k8s,
      sub: serviceAccountUsername(subject.namespace, subject.name),
      ...(audiences.length ? { aud: [...audiences] } : {}),
      iat: now,
      nbf: now,
      exp: now + expirationSeconds,
      // ServiceAccountTokenJTI (GA): each token has an ID, the user's credential-id.
      jti: randomUUID(),
      iss: this.issuer,
    });
  }

  /**
   * A legacy token for a service account token Secret (legacy.go's LegacyClaims), as the tokens
   * controller puts into the Secret: issued by `kubernetes/serviceaccount`, for no audience, with
   * no expiry, valid while the Secret holds it and the service account exists.
   */
  issueLegacy(sa: { namespace: string; name: string; uid: string }, secretName: string): string {
    return signToken(this.key, {
      iss: LEGACY_ISSUER,
      [`${LEGACY_PREFIX}namespace`]: sa.namespace,
      [`${LEGACY_PREFIX}secret.name`]: secretName,
      [`${LEGACY_PREFIX}service-account.name`]: sa.name,
      [`${LEGACY_PREFIX}service-account.uid`]: sa.uid,
      sub: serviceAccountUsername(sa.namespace, sa.name),
    });
  }

  /**
   * jwtTokenAuthenticator.AuthenticateToken. `requested`: the audiences the caller wants the
   * token for (a TokenReview's), default the apiserver's.
   */
  authenticate(token: string, requested?: readonly string[]): TokenAuthentication {
    const legacy = this.hasCorrectIssuer(token, LEGACY_ISSUER);
    if (!legacy && !this.hasCorrectIssuer(token, this.issuer)) return { handled: false };
    const parsed = parseToken(token);
    if (!parsed) return { handled: false };
    if (!verifyToken(this.key, parsed))
      return { handled: true, error: 'go-jose/go-jose: error in cryptographic primitive' };
    const claims = parsed.claims;
    let tokenAuds = audiencesOf(claims.aud);
    // Only apiserver audiences are allowed for legacy tokens (ones naming no audience).
    if (tokenAuds.length === 0) tokenAuds = [...this.apiAudiences];
    const wanted = requested ?? this.apiAudiences;
    const auds = tokenAuds.filter((a) => wanted.includes(a));
    if (auds.length === 0 && this.apiAudiences.length)
      return {
        handled: true,
        error: `token audiences ${goQuoted(tokenAuds)} is invalid for the target audiences ${goQuoted(wanted)}`,
      };
    const validated = legacy ? this.validateLegacy(token, claims) : this.validate(claims);
    if (typeof validated === 'string') return { handled: true, error: validated };
    return { handled: true, user: serviceAccountUserInfo(validated), audiences: auds };
  }

  /**
   * legacyValidator.Validate: the claims, then the Secret (still there, holding this very token)
   * and the service account (still there, with the UID the token names). The Secret's
   * last-used label, which kube-apiserver patches on each use, is not written.
   */
  private validateLegacy(
    token: string,
    claims: Record<string, unknown>,
  ): ServiceAccountInfo | string {
    const sub = stringOf(claims.sub);
    const namespace = stringOf(claims[`${LEGACY_PREFIX}namespace`]);
    const secretName = stringOf(claims[`${LEGACY_PREFIX}secret.name`]);
    const name = stringOf(claims[`${LEGACY_PREFIX}service-account.name`]);
    const uid = stringOf(claims[`${LEGACY_PREFIX}service-account.uid`]);
    if (!sub) return 'sub claim is missing';
    if (!namespace) return 'namespace claim is missing';
    if (!secretName) return 'secretName claim is missing';
    if (!name) return 'serviceAccountName claim is missing';
    if (!uid) return 'serviceAccountUID claim is missing';
    if (sub !== serviceAccountUsername(namespace, name)) return 'sub claim is invalid';
    const secret = this.getter.peek(SECRET, { namespace, name: secretName });
    if (!secret || secret.metadata.deletionTimestamp) return 'Token has been invalidated';
    const held = objectOf((secret as { data?: unknown }).data).token;
    if (typeof held !== 'string' || Buffer.from(held, 'base64').toString('utf8') !== token)
      return "Token does not match server's copy";
    const sa = this.getter.peek(SERVICE_ACCOUNT, { namespace, name });
    if (!sa) return newNotFound({ group: '', resource: 'serviceaccounts' }, name).message;
    if (sa.metadata.deletionTimestamp)
      return `ServiceAccount ${namespace}/${name} has been deleted`;
    if (sa.metadata.uid !== uid)
      return `ServiceAccount UID (${sa.metadata.uid ?? ''}) does not match claim (${uid})`;
    return { namespace, name, uid };
  }

  /** hasCorrectIssuer: a compact JWT whose (unverified) `iss` is `issuer`. */
  private hasCorrectIssuer(token: string, issuer: string): boolean {
    if (token.trim().startsWith('{')) return false;
    const parts = token.split('.');
    if (parts.length !== 3 || !/^[A-Za-z0-9_-]*$/.test(parts[1]!)) return false;
    try {
      const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
      return (
        claims !== null &&
        typeof claims === 'object' &&
        (claims as { iss?: unknown }).iss === issuer
      );
    } catch {
      return false;
    }
  }

  /** claims.go's validator.Validate: the times, then the objects the token names. */
  private validate(claims: Record<string, unknown>): ServiceAccountInfo | string {
    const now = this.nowMs() / 1000;
    const nbf = numberOf(claims.nbf);
    const exp = numberOf(claims.exp);
    const iat = numberOf(claims.iat);
    if (nbf !== undefined && now + LEEWAY_SECONDS < nbf)
      return 'service account token is not valid yet';
    if (exp !== undefined && now - LEEWAY_SECONDS > exp) return 'service account token has expired';
    if (iat !== undefined && now + LEEWAY_SECONDS < iat)
      return 'service account token is issued in the future';
    // Things deleted before now - leeway are gone (their deletion is underway).
    const deletedBefore = (this.nowMs() - LEEWAY_SECONDS * 1000) / 1000;
    const gone = (o: KubeObject) =>
      !!o.metadata.deletionTimestamp &&
      Date.parse(o.metadata.deletionTimestamp) / 1000 < deletedBefore;
    const k8s = objectOf(claims['kubernetes.io']);
    const namespace = stringOf(k8s.namespace);
    const saRef = refOf(k8s.serviceaccount)!;
    const podRef = refOf(k8s.pod);
    const nodeRef = refOf(k8s.node);
    const secretRef = refOf(k8s.secret);
    const sa = this.getter.peek(SERVICE_ACCOUNT, { namespace, name: saRef.name });
    if (!sa) return newNotFound({ group: '', resource: 'serviceaccounts' }, saRef.name).message;
    if (sa.metadata.uid !== saRef.uid)
      return `service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saRef.uid})`;
    if (gone(sa)) return `service account ${namespace}/${saRef.name} has been deleted`;
    const invalidated = 'service account token has been invalidated';
    if (secretRef) {
      const secret = this.getter.peek(SECRET, { namespace, name: secretRef.name });
      if (!secret) return invalidated;
      if (secret.metadata.uid !== secretRef.uid)
        return `secret UID (${secret.metadata.uid ?? ''}) does not match service account secret ref claim (${secretRef.uid})`;
      if (gone(secret)) return invalidated;
    }
    const info: ServiceAccountInfo = { namespace, name: saRef.name, uid: saRef.uid };
    if (podRef) {
      const pod = this.getter.peek(POD, { namespace, name: podRef.name });
      if (!pod) return invalidated;
      if (pod.metadata.uid !== podRef.uid)
        return `pod UID (${pod.metadata.uid ?? ''}) does not match service account pod ref claim (${podRef.uid})`;
      if (gone(pod)) return invalidated;
      info.podName = podRef.name;
      info.podUID = podRef.uid;
    }
    if (nodeRef && podRef) {
      // A pod-bound token's node is information only.
      info.nodeName = nodeRef.name;
      info.nodeUID = nodeRef.uid;
    } else if (nodeRef) {
      const node = this.getter.peek(NODE, { name: nodeRef.name });
      if (!node) return invalidated;
      if (node.metadata.uid !== nodeRef.uid)
        return `node UID (${node.metadata.uid ?? ''}) does not match service account node ref claim (${nodeRef.uid})`;
      if (gone(node)) return invalidated;
      info.nodeName = nodeRef.name;
      info.nodeUID = nodeRef.uid;
    }
    const jti = stringOf(claims.jti);
    if (jti) info.credentialID = `JTI=${jti}`;
    return info;
  }
}

/** A ref as encoding/json writes it: name and uid, each omitted when empty. */
function ref(r: BoundRef): Record<string, string> {
  return { ...(r.name ? { name: r.name } : {}), ...(r.uid ? { uid: r.uid } : {}) };
}

function refOf(v: unknown): { name: string; uid: string } | undefined {
  if (v === undefined || v === null) return undefined;
  const o = objectOf(v);
  return { name: stringOf(o.name), uid: stringOf(o.uid) };
}

/** jwt.Audience: a string or a list of strings. */
function audiencesOf(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((a): a is string => typeof a === 'string') : [];
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuoted(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

function objectOf(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function numberOf(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}
