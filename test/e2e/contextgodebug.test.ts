/**
 * Debug Go Operator against a developer's own cluster in a real VS Code (code-server): the
 * kubeconfig code-server gets has two contexts, the second a running `reconcile-studio serve`
 * (standing in for kind or a dev cluster). The user switches the target with the status-bar picker
 * to that second context, allows writes to it at the one confirmation, and debugs the sample's Go
 * manager through the recording proxy: it is held first in the user's Reconcile, and Step reaches
 * the write phase, whose API-call row shows the code the cluster answered — the object is there in
 * that cluster afterwards.
 * Needs Go and Delve (the bootstrap installs Delve); skipped, saying why, without them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame } from 'playwright-core';
import { DELVE_MISSING, findDelve } from '../../src/runtime/godebug/delve';
import { kubectl, serve, ROOT, type Served } from '../integration/serve';
import { pickContext, twoContexts } from './contexts';
import { launchWorkbench, stepAndWait, withScreenshotOnFailure, type Workbench } from './workbench';

const SECOND = 'dev-cluster';

describe(
  'Debug Go Operator against a second kubeconfig context',
  { timeout: 900_000 },
  async () => {
    const skip = (await findDelve()) ? false : DELVE_MISSING;
    let served: Served;
    let userKubeconfig: string;
    let wb: Workbench;
    let panel: Frame;

    before(async () => {
      if (skip) return;
      served = await serve(['--manifests', join(ROOT, 'samples/quota-operator/config')]);
      userKubeconfig = twoContexts(served, SECOND);
      wb = await launchWorkbench({ env: { KUBECONFIG: userKubeconfig } });
      await wb.openView('Reconcile Studio');
    });

    after(async () => {
      await wb?.close();
      await served?.stop();
    });

    it(
      'switches the target to the second context with the status-bar picker',
      { skip },
      async () => {
        await withScreenshotOnFailure(wb, 'contextgodebug-pick', () => pickContext(wb, SECOND));
      },
    );

    it(
      'holds the manager first in the user’s Reconcile, once writes to the context are allowed',
      { skip },
      async () => {
        await withScreenshotOnFailure(wb, 'contextgodebug-start', async () => {
          await wb.runCommand('Reconcile Studio: Debug Go Operator');
          // The one confirmation of writes to a real cluster, per context.
          const allow = wb.page.getByRole('button', { name: `Allow writes to ${SECOND}` });
          await allow.waitFor({ state: 'visible', timeout: 120_000 });
          await allow.click();
          // The first debug build of the manager takes a while on a cold cache.
          panel = await wb.findFrame('.status-held', 600_000);
          assert.match(
            await panel.locator('.status').innerText(),
            /Held at reconcile default\/(blog|shop)/,
          );
          // A real cluster's clock runs on: the panel counts the time held on that context.
          const held = panel.locator('.hold-time');
          await held.waitFor({ state: 'visible', timeout: 30_000 });
          assert.match(await held.innerText(), new RegExp(`^Held for \\d+:\\d\\d on ${SECOND}`));
        });
      },
    );

    it(
      'steps to the write phase, whose API-call row shows the cluster’s answer',
      { skip },
      async () => {
        await withScreenshotOnFailure(wb, 'contextgodebug-step', async () => {
          const status = () => panel.locator('.status').innerText();
          // The hold names the write and the code the cluster answered. The first write the
          // sample makes is its Deployment's create; should the cluster refuse one (the sample's
          // quota), Step goes on to the next write it answers.
          const answered = /Held at write (create|update|patch) .*\(server\) → 20[01]/;
          for (let i = 0; i < 30 && !answered.test(await status()); i++)
            await stepAndWait(panel, 60_000);
          assert.match(await status(), answered);
          // The write's row: phase write, a write verb, answered by the server with a 2xx code.
          const rows = await panel
            .locator('.calls-table tbody tr')
            .evaluateAll((trs) =>
              trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')),
            );
          const write = rows.find(
            ([phase, verb, , code, source]) =>
              phase === 'write' &&
              /^(create|update|patch)$/.test(verb) &&
              /^20[01]$/.test(code) &&
              source === 'server',
          );
          assert.ok(write, `no answered write among the calls: ${JSON.stringify(rows)}`);
          // The write reached the second context's cluster: the object is there.
          const [, verb, object] = write;
          const [path, key] = object.trim().split(' ');
          const resource = path.split('/')[0];
          const [namespace, name] = key.split('/');
          const got = await kubectl(served.kubeconfig, ['get', resource, name, '-n', namespace]);
          assert.equal(got.code, 0, `${verb} ${object}: ${got.stderr}`);
          await wb.screenshot('contextgodebug');
        });
      },
    );
  },
);
