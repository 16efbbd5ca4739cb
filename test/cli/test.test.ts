import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/test';

const tmp = mkdtempSync(join(tmpdir(), 'rs-test-cmd-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * A child that reads its environment and asks the cluster for namespaces/default (what envtest's
 * Start() polls first), then writes what it saw to a file and exits with `code`.
 */
function probe(
  out: string,
  code: number,
  path = '/api/v1/namespaces/default',
  own: string[] = [],
): string[] {
  const script = `
    const fs = require('node:fs');
    const https = require('node:https');
    const kc = process.env.KUBECONFIG;
    const text = fs.readFileSync(kc, 'utf8');
    const server = /server: (\\S+)/.exec(text)[1];
    const token = /token: (\\S+)/.exec(text)[1];
    const ca = Buffer.from(/certificate-authority-data: (\\S+)/.exec(text)[1], 'base64');
    https.get(server + ${JSON.stringify(path)}, { ca, headers: { authorization: 'Bearer ' + token } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({
          kubeconfig: kc,
          mode: fs.statSync(kc).mode & 0o777,
          useExisting: process.env.USE_EXISTING_CLUSTER,
          status: res.statusCode,
          name: JSON.parse(body).metadata?.name,
          arg: process.argv[1],
        }));
        process.exit(${code});
      });
    });`;
  return [...own, '--', process.execPath, '-e', script, 'an-argument'];
}

describe('reconcile-studio test', () => {
  it('runs the command against a fresh cluster with KUBECONFIG and USE_EXISTING_CLUSTER=true', async () => {
    const out = join(tmp, 'seen.json');
    const code = await run(probe(out, 0));
    assert.equal(code, 0);
    const seen = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    assert.equal(seen.useExisting, 'true');
    assert.equal(seen.status, 200);
    assert.equal(seen.name, 'default');
    assert.equal(seen.mode, 0o600);
    assert.equal(seen.arg, 'an-argument');
    assert.notEqual(seen.kubeconfig, process.env.KUBECONFIG);
    assert.equal(existsSync(seen.kubeconfig as string), false, 'its kubeconfig is removed after');
  });

  it("exits with the command's status", async () => {
    assert.equal(await run(probe(join(tmp, 'fail.json'), 3)), 3);
  });

  it('forwards SIGTERM to the command and exits with what it then exits with', async () => {
    const ready = join(tmp, 'ready');
    const script = `process.on('SIGTERM', () => process.exit(7));
      require('node:fs').writeFileSync(${JSON.stringify(ready)}, '');
      setInterval(() => {}, 1000);`;
    const done = run(['--', process.execPath, '-e', script]);
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    // Our own handler is installed while the command runs, so this reaches the command only.
    process.kill(process.pid, 'SIGTERM');
    assert.equal(await done, 7);
  });

  it("is envtest's control plane by default: the kubernetes Service, no default ServiceAccount", async () => {
    const svc = join(tmp, 'svc.json');
    assert.equal(await run(probe(svc, 0, '/api/v1/namespaces/default/services/kubernetes')), 0);
    assert.equal(JSON.parse(readFileSync(svc, 'utf8')).status, 200);
    const sa = join(tmp, 'sa.json');
    assert.equal(await run(probe(sa, 0, '/api/v1/namespaces/default/serviceaccounts/default')), 0);
    assert.equal(JSON.parse(readFileSync(sa, 'utf8')).status, 404);
    const node = join(tmp, 'node.json');
    assert.equal(await run(probe(node, 0, '/api/v1/nodes/reconcile-studio-node')), 0);
    assert.equal(JSON.parse(readFileSync(node, 'utf8')).status, 404);
  });

  it('runs the built-in controllers and a node with --controllers', async () => {
    const node = join(tmp, 'node-on.json');
    const path = '/api/v1/nodes/reconcile-studio-node';
    assert.equal(await run(probe(node, 0, path, ['--controllers'])), 0);
    assert.equal(JSON.parse(readFileSync(node, 'utf8')).name, 'reconcile-studio-node');
  });

  it('refuses --controllers with --no-controllers', async () => {
    assert.equal(await run(['--controllers', '--no-controllers', '--', 'true']), 2);
  });

  it('says so when the command does not exist', async () => {
    assert.equal(await run(['--', join(tmp, 'no-such-command')]), 127);
  });

  it('refuses to start without a command', async () => {
    assert.equal(await run(['--manifests', tmp]), 2);
  });
});
