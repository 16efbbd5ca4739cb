/**
 * Who a request is from, as k8s.io/apiserver's `authentication/user` (user.Info) and
 * `authentication/serviceaccount` (the names and groups a service account's token stands for).
 */

/** user.Info as authentication.k8s.io/v1 UserInfo writes it (uid and extra are omitted when empty). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** user.AllAuthenticated */
export const ALL_AUTHENTICATED = 'system:authenticated';

/** user.CredentialIDKey: the extra key naming the credential (a token's `JTI=<jti>`). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

/** serviceaccount.PodNameKey and friends: the extra keys of a token bound to a pod or node. */
export const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
export const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
export const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
export const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

/** serviceaccount.MakeUsername */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** serviceaccount.ServiceAccountInfo: what a validated service account token says. */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUID?: string;
  nodeName?: string;
  nodeUID?: string;
  credentialID?: string;
}

/**
 * ServiceAccountInfo.UserInfo: the service account's user, in `system:serviceaccounts` and its
 * namespace's group, with the bound pod, node and credential in `extra`. The authenticated group
 * is added by the request authenticator, as everyone's.
 */
export function serviceAccountUserInfo(sa: ServiceAccountInfo): UserInfo {
  const extra: Record<string, string[]> = {};
  if (sa.podName && sa.podUID) {
    extra[POD_NAME_KEY] = [sa.podName];
    extra[POD_UID_KEY] = [sa.podUID];
  }
  if (sa.credentialID) extra[CREDENTIAL_ID_KEY] = [sa.credentialID];
  if (sa.nodeName) {
    extra[NODE_NAME_KEY] = [sa.nodeName];
    if (sa.nodeUID) extra[NODE_UID_KEY] = [sa.nodeUID];
  }
  return {
    username: serviceAccountUsername(sa.namespace, sa.name),
    ...(sa.uid ? { uid: sa.uid } : {}),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`],
    ...(Object.keys(extra).length ? { extra: sortedKeys(extra) } : {}),
  };
}

/**
 * group.AuthenticatedGroupAdder: `system:authenticated` appended to every authenticated user's
 * groups, unless the user is already in it.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(ALL_AUTHENTICATED)) return user;
  // Spelled out rather than `{ ...user, groups }`: that literal costs microseconds on every
  // request on Node 20's V8 (see docs/ARCHITECTURE.md, "Object spreads on the hot path").
  const out: UserInfo = { username: user.username, groups: [...user.groups, ALL_AUTHENTICATED] };
  if (user.uid !== undefined) out.uid = user.uid;
  if (user.extra !== undefined) out.extra = user.extra;
  return out;
}

/** A map's keys in order, as encoding/json writes a Go map. */
function sortedKeys<T>(m: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
