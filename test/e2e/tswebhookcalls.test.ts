/**
 * A TypeScript reconciler's write meets the cluster's admission webhooks, in a real VS Code: the
 * sample's workspace gets a ValidatingWebhookConfiguration for Deployments that points at a
 * webhook server this test runs (its CA the caBundle), refusing the Deployment of `shop`. Open
 * Reconcile Debugger holds the sample's reconciler; stepped past its Deployment create, the
 * API calls pane shows the webhook call under that write: the webhook, `denied (403)`, its
 * latency and the refusal's message.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame } from 'playwright-core';
import YAML from 'yaml';
import { startWebhookServer, type WebhookServer } from '../cluster/admission/webhook/webhookserver';
import {
  launchWorkbench,
  repoRoot,
  stepAndWait,
  withScreenshotOnFailure,
  type Workbench,
} from './workbench';

const WEBHOOK = 'vdeployment.example.com';

describe('a TypeScript reconciler with admission webhooks', { timeout: 480_000 }, () => {
  let wb: Workbench;
  let hook: WebhookServer;
  let scratch = '';

  before(async () => {
    hook = await startWebhookServer();
    hook.handle('/validate', (r) =>
      r.name === 'shop'
        ? { allowed: false, status: { code: 403, message: 'shop may not run here' } }
        : { allowed: true },
    );
    scratch = mkdtempSync(join(tmpdir(), 'rs-e2e-tswebhook-'));
    const workspace = join(scratch, 'sample');
    cpSync(join(repoRoot, 'samples', 'quota-operator'), workspace, { recursive: true });
    mkdirSync(join(workspace, 'config', 'webhook'));
    writeFileSync(
      join(workspace, 'config', 'webhook', 'deployments.yaml'),
      YAML.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'deployment-checks' },
        webhooks: [
          {
            name: WEBHOOK,
            clientConfig: { url: `${hook.url}/validate`, caBundle: hook.caBundle },
            rules: [
              {
                operations: ['CREATE'],
                apiGroups: ['apps'],
                apiVersions: ['v1'],
                resources: ['deployments'],
              },
            ],
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      }),
    );
    wb = await launchWorkbench({
      workspace,
      settings: {
        'reconcileStudio.cluster.manifests': [
          'config/crd/bases',
          'config/webhook',
          'config/samples',
        ],
      },
    });
  });

  after(async () => {
    await wb?.close();
    await hook?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('shows the webhook call under the write it refused, with its verdict and latency', async () => {
    await withScreenshotOnFailure(wb, 'ts-webhook-calls', async () => {
      await wb.runCommand('Reconcile Studio: Open Reconcile Debugger');
      const panel: Frame = await wb.findFrame('.pipeline', 60_000);
      await panel.locator('.status-held').waitFor({ timeout: 90_000 });
      // Step until the shop's Deployment create has been made: its row then has its webhook's.
      const row = panel
        .locator('.calls-table tr.webhook-call')
        .filter({ hasText: WEBHOOK })
        .filter({ hasText: 'denied (403)' });
      for (let i = 0; i < 40 && !(await row.count()); i++) await stepAndWait(panel);
      const cells = await row
        .first()
        .locator('td')
        .evaluateAll((tds) => tds.map((td) => td.textContent ?? ''));
      assert.equal(cells[1], 'validating');
      assert.equal(cells[2], WEBHOOK);
      assert.match(cells[5], /^\d+(\.\d+)?(µs|ms|s)$/);
      assert.equal(
        cells[6],
        `admission webhook "${WEBHOOK}" denied the request: shop may not run here`,
      );
      // The write above it is the refused create.
      const call = await row
        .first()
        .evaluate((tr) =>
          Array.from(tr.previousElementSibling?.querySelectorAll('td') ?? []).map(
            (td) => td.textContent ?? '',
          ),
        );
      assert.deepEqual(
        [call[1], call[2].trim(), call[3]],
        ['create', 'deployments default/shop', '403'],
      );
      await row.first().scrollIntoViewIfNeeded();
      await wb.screenshot('ts-webhook-calls');
    });
  });
});
