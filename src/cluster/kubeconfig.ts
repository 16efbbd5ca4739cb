/** The kubeconfig a client needs for the served cluster: server URL, CA data, bearer token. */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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

/**
 * Writes a kubeconfig readable by its owner only (it holds a bearer token), atomically: a client
 * starting at the same moment reads the old file or the new one, never half of one.
 */
export function writeKubeconfigFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}
