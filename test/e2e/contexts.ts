/**
 * A developer's kubeconfig of two contexts for the e2e tests of a real target: the first, current
 * one names a cluster nobody listens for; the second is a running `reconcile-studio serve`
 * (standing in for kind or a dev cluster), under a name of its own. And the status-bar picker's
 * way to that second context.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import type { Served } from '../integration/serve';
import type { Workbench } from './workbench';

interface Kubeconfig {
  clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
  users: Array<{ name: string; user: Record<string, unknown> }>;
  contexts: Array<{ name: string; context: { cluster: string; user: string } }>;
  'current-context': string;
}

/** Writes the two-context kubeconfig beside the served cluster's; answers its path. */
export function twoContexts(served: Served, second: string): string {
  const kc = YAML.parse(readFileSync(served.kubeconfig, 'utf8')) as Kubeconfig;
  const file = join(served.dir, 'user-kubeconfig');
  const both: Kubeconfig = {
    ...kc,
    clusters: [
      {
        name: 'first',
        cluster: { server: 'https://127.0.0.1:9', 'insecure-skip-tls-verify': true },
      },
      { name: second, cluster: kc.clusters[0].cluster },
    ],
    users: [
      { name: 'first', user: { token: 'unused' } },
      { name: second, user: kc.users[0].user },
    ],
    contexts: [
      { name: 'first', context: { cluster: 'first', user: 'first' } },
      { name: second, context: { cluster: second, user: second } },
    ],
    'current-context': 'first',
  };
  writeFileSync(file, YAML.stringify(both));
  return file;
}

/** Picks `context` as the target in the status bar's picker, which offers both contexts. */
export async function pickContext(wb: Workbench, context: string): Promise<void> {
  const item = wb.page.locator('.statusbar-item', { hasText: 'Embedded cluster' }).first();
  await item.waitFor({ state: 'visible', timeout: 60_000 });
  await item.click();
  const row = wb.page.locator('.quick-input-list .monaco-list-row', { hasText: context });
  await row.first().waitFor({ state: 'visible', timeout: 30_000 });
  // Both contexts are offered, after the embedded cluster.
  await wb.page
    .locator('.quick-input-list .monaco-list-row', { hasText: 'first' })
    .first()
    .waitFor({ state: 'visible' });
  await row.first().click();
  await wb.page
    .locator('.statusbar-item', { hasText: context })
    .first()
    .waitFor({ state: 'visible', timeout: 30_000 });
}
