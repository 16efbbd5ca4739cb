/**
 * POST serviceaccounts/NAME/token (kube-apiserver's TokenREST,
 * pkg/registry/core/serviceaccount/storage/token.go): a TokenRequest answered with a signed
 * service account token (serviceaccounttoken.ts). Nothing is stored. The request is checked as
 * TokenREST checks it, in its order: the name and UID against the service account's, the
 * expiration (ValidateTokenRequest), then the object the token is to be bound to — a pod running
 * as that service account, a secret or a node, which must exist (with the UID given, if any).
 */
import type { Cluster } from '../cluster';
import {
  fieldInvalid,
  newBadRequest,
  newConflict,
  newInvalid,
  type GroupResource,
} from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { splitApiVersion } from '../apimachinery/types';
import { goTypeOf } from '../api/apitypes';
import { goTypeErrorMessage, typedDecode } from '../api/gotypes';
import { recordManagedFields } from '../managedfields/fieldmanager';
import type { BoundRef, ServiceAccountTokens, TokenSubject } from '../auth/serviceaccounttoken';

const GROUP_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };
const TOKEN_REQUEST = { group: 'authentication.k8s.io', resource: 'TokenRequest' };
const API_VERSION = 'authentication.k8s.io/v1';

/** validation.MinTokenAgeSec */
const MIN_TOKEN_AGE_SECONDS = 10 * 60;
/** SetDefaults_TokenRequestSpec: an hour. */
const DEFAULT_EXPIRATION_SECONDS = 60 * 60;
/**
 * serviceaccount.WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds: a pod-bound
 * token asked for this odd hour (what the kubelet asks for projected tokens) is valid for a year,
 * and says from when it should have been refreshed (`--service-account-extend-token-expiration`,
 * on by default).
 */
const WARN_ONLY_EXPIRATION_SECONDS = 60 * 60 + 7;
const EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60;

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (isObject(v) ? v : {});

export interface TokenRequestContext {
  tokens: ServiceAccountTokens;
  fieldManager: string;
}

/** The answered TokenRequest (201). `body` is the decoded request; `key` the service account. */
export function createToken(
  cluster: Cluster,
  key: { namespace: string; name: string },
  body: KubeObject,
  ctx: TokenRequestContext,
): KubeObject {
  const { name, namespace } = key;
  const { error } = typedDecode(
    body,
    goTypeOf('authentication.k8s.io', 'v1', 'TokenRequest', false),
    true,
  );
  if (error)
    throw newBadRequest(
      `TokenRequest in version "v1" cannot be handled as a TokenRequest: ${goTypeErrorMessage(error)}`,
    );
  const spec = rec(body.spec);
  if (typeof spec.expirationSeconds !== 'number')
    spec.expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
  const md = body.metadata;
  if (md.name && md.name !== name)
    throw newInvalid(GROUP_KIND, name, [
      fieldInvalid('metadata.name', md.name, 'must match the service account name if specified'),
    ]);
  if (md.namespace && md.namespace !== namespace)
    throw newInvalid(GROUP_KIND, name, [
      fieldInvalid(
        'metadata.namespace',
        md.namespace,
        'must match the service account namespace if specified',
      ),
    ]);
  const sa = cluster.get({ apiVersion: 'v1', kind: 'ServiceAccount' }, key);
  const saUID = sa.metadata.uid ?? '';
  // TokenRequestServiceAccountUIDValidation (on by default).
  if (md.uid && md.uid !== saUID)
    throw newConflict(
      TOKEN_REQUEST,
      name,
      `the UID in the token request (${md.uid}) does not match the UID of the service account (${saUID})`,
    );
  const nowMs = cluster.clock.now();
  const now = cluster.now();
  // What the writer set, for the managed fields the answer carries (the decoded, defaulted body).
  const managed: KubeObject = {
    apiVersion: API_VERSION,
    kind: 'TokenRequest',
    metadata: {},
    spec: structuredClone(spec),
  };
  recordManagedFields(managed, undefined, ctx.fieldManager, 'Update', API_VERSION, now, 'token');
  if (!Array.isArray(spec.audiences) || spec.audiences.length === 0)
    spec.audiences = [...ctx.tokens.apiAudiences];
  const expirationSeconds = spec.expirationSeconds as number;
  const errs = [];
  if (expirationSeconds < MIN_TOKEN_AGE_SECONDS)
    errs.push(
      fieldInvalid(
        'spec.expirationSeconds',
        expirationSeconds,
        'may not specify a duration less than 10 minutes',
      ),
    );
  if (expirationSeconds > 2 ** 32)
    errs.push(
      fieldInvalid(
        'spec.expirationSeconds',
        expirationSeconds,
        'may not specify a duration larger than 2^32 seconds',
      ),
    );
  if (errs.length) throw newInvalid(GROUP_KIND, '', errs);

  const subject: TokenSubject = { namespace, name: sa.metadata.name ?? name, uid: saUID };
  const ref = spec.boundObjectRef;
  if (isObject(ref)) bind(cluster, subject, ref);

  let exp = expirationSeconds;
  let warnAfter: number | undefined;
  const audiences = (spec.audiences as unknown[]).map(String);
  if (
    subject.pod &&
    exp === WARN_ONLY_EXPIRATION_SECONDS &&
    audiences.every((a) => ctx.tokens.apiAudiences.includes(a))
  ) {
    warnAfter = exp;
    exp = EXTENDED_EXPIRATION_SECONDS;
  }
  const token = ctx.tokens.issue(subject, exp, audiences, warnAfter);
  return {
    kind: 'TokenRequest',
    apiVersion: API_VERSION,
    metadata: {
      name: sa.metadata.name,
      namespace,
      uid: saUID,
      creationTimestamp: now,
      ...(managed.metadata.managedFields ? { managedFields: managed.metadata.managedFields } : {}),
    },
    spec: {
      audiences,
      expirationSeconds,
      boundObjectRef: isObject(ref) ? ref : null,
    },
    status: {
      token,
      expirationTimestamp: new Date(Math.floor(nowMs / 1000) * 1000 + expirationSeconds * 1000)
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    },
  } as KubeObject;
}

/** The bound object, looked up as TokenREST does; it goes into `subject`. */
function bind(cluster: Cluster, subject: TokenSubject, ref: Obj): void {
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const refName = typeof ref.name === 'string' ? ref.name : '';
  // schema.FromAPIVersionAndKind: a version without a group is the core group's.
  const { group, version } = splitApiVersion(apiVersion);
  let uid: string;
  if (group === '' && kind === 'Pod') {
    const pod = cluster.get(
      { apiVersion: 'v1', kind: 'Pod' },
      {
        namespace: subject.namespace,
        name: refName,
      },
    );
    if (subject.name !== rec(pod.spec).serviceAccountName)
      throw newBadRequest(
        `cannot bind token for serviceaccount "${subject.name}" to pod running with different serviceaccount name.`,
      );
    uid = pod.metadata.uid ?? '';
    subject.pod = { name: refName, uid };
    // ServiceAccountTokenPodNodeInfo (GA): the pod's node, by name alone when it is gone.
    const nodeName = rec(pod.spec).nodeName;
    if (typeof nodeName === 'string' && nodeName) {
      const node = cluster.peek({ apiVersion: 'v1', kind: 'Node' }, { name: nodeName });
      subject.node = node ? { name: nodeName, uid: node.metadata.uid } : { name: nodeName };
    }
  } else if (group === '' && kind === 'Node') {
    const node = cluster.get({ apiVersion: 'v1', kind: 'Node' }, { name: refName });
    uid = node.metadata.uid ?? '';
    subject.node = { name: refName, uid };
  } else if (group === '' && kind === 'Secret') {
    const secret = cluster.get(
      { apiVersion: 'v1', kind: 'Secret' },
      {
        namespace: subject.namespace,
        name: refName,
      },
    );
    uid = secret.metadata.uid ?? '';
    subject.secret = { name: refName, uid } satisfies BoundRef;
  } else {
    throw newBadRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  if (typeof ref.uid === 'string' && ref.uid && ref.uid !== uid) {
    const gr: GroupResource = { group, resource: kind };
    throw newConflict(
      gr,
      refName,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
}
