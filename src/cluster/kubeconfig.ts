/** The kubeconfig a client needs for the served cluster: server URL, CA data, bearer token. */
import YAML from 'yaml';

export interface KubeconfigParams {
  server: string;
  caPem: string;
  token: string;
  contextName?: string;
  namespace?: string;
}

export function renderKubeconfig(p: KubeconfigParams): string {
  const name = p.contextName ?? 'reconcile-studio';
  return YAML.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: {
          server: p.server,
          'certificate-authority-data': Buffer.from(p.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name, user: { token: p.token } }],
    contexts: [
      { name, context: { cluster: name, user: name, namespace: p.namespace ?? 'default' } },
    ],
    'current-context': name,
    preferences: {},
  });
}
