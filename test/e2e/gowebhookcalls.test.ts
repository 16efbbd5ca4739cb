/**
 * Run Go Operator on an operator with admission webhooks, in a real VS Code: the greeter
 * (fixtures/greeter-operator) answers each greeting ConfigMap with a reply ConfigMap, and its own
 * webhooks stamp each reply (mutating) and refuse one that says "forbidden" (validating). The
 * workspace's manifests install both configurations, pointing at the manager's webhook server on
 * a loopback port with the caBundle of a CA the test makes (what cert-manager's CA injector
 * would do), and two greetings, one whose reply is refused. Open Reconcile Debugger while the
 * manager runs shows its reconciles: under the reply's create, the webhook calls the cluster
 * made for it — the stamp allowed and patched, the refusal denied with its message — each with
 * its latency. Skipped where Go is missing.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { generateServingCerts } from '../../src/cluster/auth/certs';
import { freePort } from '../../src/runtime/goprocess';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { launchWorkbench, repoRoot, withScreenshotOnFailure, type Workbench } from './workbench';

const FIXTURE = join(repoRoot, 'test', 'e2e', 'fixtures', 'greeter-operator');
const REPLY = 'greeter.example.com/reply';
const MUTATING = 'mreply.greeter.example.com';
const VALIDATING = 'vreply.greeter.example.com';

/** One configuration of one webhook, selecting the replies, at the manager's loopback port. */
function configuration(kind: 'Mutating' | 'Validating', port: number, caBundle: string) {
  const mutating = kind === 'Mutating';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: mutating ? 'greeter-mutating' : 'greeter-validating' },
    webhooks: [
      {
        name: mutating ? MUTATING : VALIDATING,
        // The paths controller-runtime's webhook builder gives a core/v1 ConfigMap.
        clientConfig: {
          url: `https://127.0.0.1:${port}/${mutating ? 'mutate' : 'validate'}--v1-configmap`,
          caBundle,
        },
        rules: [
          {
            operations: ['CREATE', 'UPDATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
        objectSelector: { matchLabels: { [REPLY]: 'true' } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

function greeting(name: string, text: string) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { 'greeter.example.com/greeting': '' } },
    data: { greeting: text },
  };
}

/** The greeter with its certificate, its webhook configurations and two greetings as manifests. */
async function greeterWorkspace(dir: string, port: number): Promise<void> {
  cpSync(FIXTURE, dir, { recursive: true });
  const certs = await generateServingCerts();
  mkdirSync(join(dir, 'certs'));
  writeFileSync(join(dir, 'certs', 'tls.crt'), certs.certPem);
  writeFileSync(join(dir, 'certs', 'tls.key'), certs.keyPem, { mode: 0o600 });
  const caBundle = Buffer.from(certs.caPem).toString('base64');
  const docs = (objects: unknown[]) => objects.map((o) => YAML.stringify(o)).join('---\n');
  mkdirSync(join(dir, 'config', 'webhook'), { recursive: true });
  writeFileSync(
    join(dir, 'config', 'webhook', 'manifests.yaml'),
    docs([configuration('Mutating', port, caBundle), configuration('Validating', port, caBundle)]),
  );
  mkdirSync(join(dir, 'config', 'samples'), { recursive: true });
  writeFileSync(
    join(dir, 'config', 'samples', 'greetings.yaml'),
    docs([greeting('hello', 'hello'), greeting('rude', 'forbidden words')]),
  );
}

/** A webhook row of the API calls table, its cells' texts, once one matches. */
interface Row {
  cells: string[];
  /** The call row above it (the write that made the webhook call). */
  call: string[];
}

describe('Run Go Operator with admission webhooks', { timeout: 480_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());
  let wb: Workbench;
  let scratch = '';

  before(async () => {
    if (goProblem) return;
    scratch = mkdtempSync(join(tmpdir(), 'rs-e2e-greeter-'));
    const workspace = join(scratch, 'greeter');
    const port = await freePort();
    await greeterWorkspace(workspace, port);
    wb = await launchWorkbench({
      workspace,
      settings: {
        'reconcileStudio.cluster.manifests': ['config/webhook', 'config/samples'],
        'reconcileStudio.go.runCommand': `go run ./cmd --webhook-cert-path=certs --webhook-host=127.0.0.1 --webhook-port=${port} $RECONCILE_STUDIO_MANAGER_FLAGS`,
      },
    });
    await wb.openView('Reconcile Studio');
  });

  after(async () => {
    await wb?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it(
    "shows the webhook calls of the operator's write under it in the Reconcile Debugger, with verdicts and latency",
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'go-webhook-calls', async () => {
        await wb.runCommand('Reconcile Studio: Run Go Operator');
        // The controller's name comes from the manager's own logs.
        await wb.page
          .locator('.sidebar')
          .getByText('greeting', { exact: true })
          .first()
          .waitFor({ timeout: 300_000 });
        await wb.runCommand('Reconcile Studio: Open Reconcile Debugger');
        const frame = await wb.findFrame('#app', 60_000);
        // The panel follows the newest reconcile: the refused reply's retries (their backoff is
        // short at first). Read the table in one go in the page: it is redrawn as reconciles end.
        const rowOf = async (kind: string, verdict: RegExp): Promise<Row> => {
          // A function, not a string (the webview's CSP refuses eval), with no named function
          // inside (the test's compiler would name it with a helper the page does not have).
          const handle = await frame.waitForFunction(
            ([k, v]) => {
              for (const tr of Array.from(
                document.querySelectorAll('.calls-table tr.webhook-call'),
              )) {
                const cells = Array.from(tr.querySelectorAll('td')).map(
                  (td) => td.textContent ?? '',
                );
                if (cells[1] !== k || !new RegExp(v).test(cells[3])) continue;
                let above = tr.previousElementSibling;
                while (above?.classList.contains('webhook-call'))
                  above = above.previousElementSibling;
                const call = Array.from(above?.querySelectorAll('td') ?? []).map(
                  (td) => td.textContent ?? '',
                );
                return { cells, call };
              }
              return null;
            },
            [kind, verdict.source] as const,
            { timeout: 120_000, polling: 250 },
          );
          return (await handle.jsonValue()) as Row;
        };
        const denied = await rowOf('validating', /^denied \(403\)$/);
        assert.equal(denied.cells[2], VALIDATING);
        assert.equal(
          denied.cells[6],
          `admission webhook "${VALIDATING}" denied the request: reply "rude-reply" may not say "forbidden"`,
        );
        // Latency as the table words durations.
        assert.match(denied.cells[5], /^\d+(\.\d+)?(µs|ms|s)$/);
        // Under the reply's create, which the refusal failed.
        assert.deepEqual(
          [denied.call[1], denied.call[2].trim(), denied.call[3]],
          ['create', 'configmaps default/rude-reply', '403'],
        );
        const stamped = await rowOf('mutating', /^allowed, patched$/);
        assert.equal(stamped.cells[2], MUTATING);
        assert.match(stamped.cells[5], /^\d+(\.\d+)?(µs|ms|s)$/);
        assert.equal(stamped.call[1], 'create');
        // In the page, in one go: the panel is redrawn as the refused reply's retries end.
        await frame.evaluate(() => document.querySelector('.calls-table')?.scrollIntoView());
        await wb.screenshot('go-webhook-calls');
      });
    },
  );
});
