/**
 * kube-controller-manager's service account tokens controller (pkg/controller/serviceaccount/
 * tokens_controller.go), for the Secrets a user still creates by hand: a Secret of type
 * `kubernetes.io/service-account-token` naming a service account gets a legacy token for it, the
 * root CA and the namespace, and the account's UID in its annotations; a token Secret whose
 * service account is gone (or is another of the same name) is deleted. The token is signed with
 * the key of the HTTPS server that serves the cluster, so the controller starts when it does.
 */
import type { ControllerHost } from './controllerhost';
import type { ServiceAccountTokens } from '../auth/serviceaccounttoken';
import { StatusError } from '../apimachinery/errors';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';
import { WorkQueue } from './workqueue';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const SERVICE_ACCOUNT = { apiVersion: 'v1', kind: 'ServiceAccount' };
const TOKEN_TYPE = 'kubernetes.io/service-account-token';
const NAME_KEY = 'kubernetes.io/service-account.name';
const UID_KEY = 'kubernetes.io/service-account.uid';
const MANAGER = { fieldManager: 'kube-controller-manager' };

export function startServiceAccountTokensController(
  cluster: ControllerHost,
  caPem: string,
  tokens: ServiceAccountTokens,
): () => void {
  const q = new WorkQueue('serviceaccount-tokens-secret', cluster.clock, (key) => {
    const [namespace, name] = key.split('/') as [string, string];
    syncSecret(cluster, caPem, tokens, namespace, name);
  });
  const queueTokensOf = (sa: KubeObject) => {
    for (const s of cluster.scan(SECRET, sa.metadata.namespace))
      if (isToken(s) && s.metadata.annotations?.[NAME_KEY] === sa.metadata.name)
        q.add(`${s.metadata.namespace}/${s.metadata.name}`);
  };
  const unsub = cluster.subscribe((c) => {
    if (c.storageKey === '/secrets' && c.type !== 'DELETED' && isToken(c.object))
      q.add(`${c.object.metadata.namespace}/${c.object.metadata.name}`);
    else if (c.storageKey === '/serviceaccounts' && c.type === 'DELETED') queueTokensOf(c.object);
  });
  for (const s of cluster.scan(SECRET))
    if (isToken(s)) q.add(`${s.metadata.namespace}/${s.metadata.name}`);
  return () => {
    unsub();
    q.stop();
  };
}

function isToken(o: KubeObject): boolean {
  return (o as { type?: unknown }).type === TOKEN_TYPE;
}

function syncSecret(
  cluster: ControllerHost,
  caPem: string,
  tokens: ServiceAccountTokens,
  namespace: string,
  name: string,
): void {
  const secret = cluster.peek(SECRET, { namespace, name });
  if (!secret || !isToken(secret) || secret.metadata.deletionTimestamp) return;
  const annotations = secret.metadata.annotations ?? {};
  const saName = annotations[NAME_KEY] ?? '';
  const sa = cluster.peek(SERVICE_ACCOUNT, { namespace, name: saName });
  const wantedUid = annotations[UID_KEY];
  if (!sa || (wantedUid && sa.metadata.uid !== wantedUid)) {
    // Its service account is gone: so is the token (preconditioned on the Secret's UID).
    try {
      cluster.delete(SECRET, { namespace, name }, { preconditions: { uid: secret.metadata.uid! } });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
    return;
  }
  const data = rec((secret as { data?: unknown }).data) as Record<string, string>;
  const decoded = (k: string) => (data[k] ? Buffer.from(data[k], 'base64').toString('utf8') : '');
  const needsCA = caPem !== '' && decoded('ca.crt') !== caPem;
  const needsNamespace = decoded('namespace') !== namespace;
  const needsToken = !data.token;
  if (!needsCA && !needsNamespace && !needsToken) return;
  const next = structuredClone(secret) as KubeObject & { data?: Record<string, string> };
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  next.data = { ...data };
  if (needsCA) next.data['ca.crt'] = b64(caPem);
  if (needsNamespace) next.data.namespace = b64(namespace);
  if (needsToken) {
    const uid = sa.metadata.uid!;
    next.data.token = b64(tokens.issueLegacy({ namespace, name: saName, uid }, name));
  }
  next.metadata.annotations = { ...annotations, [NAME_KEY]: saName, [UID_KEY]: sa.metadata.uid! };
  cluster.update(next, MANAGER);
}
