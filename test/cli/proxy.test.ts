/**
 * `reconcile-studio proxy` in front of a served cluster (the embedded one over HTTPS, with a
 * kubeconfig of its own standing in for the user's): kubectl through the written kubeconfig
 * reaches the cluster, each call is printed as it completes, and the user's file is left as it was.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCluster } from '../../src/cluster/builtins';
import type { Cluster } from '../../src/cluster/cluster';
import { startServer, type ServerHandle } from '../../src/cluster/endpoints/server';
import { run } from '../../src/cli/proxy';
import { capture } from './capture';

let cluster: Cluster;
let served: ServerHandle;
let dir: string;

before(async () => {
  cluster = createCluster();
  served = await startServer({ cluster });
  dir = mkdtempSync(join(tmpdir(), 'cli-proxy-'));
});
after(async () => {
  await served.close();
  cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

test('proxy forwards kubectl to the chosen context, prints each call and writes only its own kubeconfig', async () => {
  const user = join(dir, 'config');
  const text = served.kubeconfig('dev');
  writeFileSync(user, text);
  const out = join(dir, 'operator.kubeconfig');
  const running = capture(run, [
    '--kubeconfig',
    user,
    '--context',
    'dev',
    '--write-kubeconfig',
    out,
    '--log-requests',
  ]);
  for (let i = 0; i < 500 && !existsSync(out); i++) await new Promise((r) => setTimeout(r, 10));
  const got = await new Promise<string>((resolve, reject) =>
    execFile(
      'kubectl',
      ['--kubeconfig', out, 'get', 'namespace', 'default', '-o', 'name'],
      (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
    ),
  );
  assert.equal(got.trim(), 'namespace/default');
  process.emit('SIGINT');
  const r = await running;
  assert.equal(r.code, 0);
  assert.match(
    r.out,
    /Recording proxy to the context "dev" \(https:\/\/127\.0\.0\.1:\d+\) at https:\/\/127\.0\.0\.1:\d+/,
  );
  assert.match(r.err, /^get \/api\/v1\/namespaces\/default 200 \d+ms agent="kubectl\//m);
  assert.equal(readFileSync(user, 'utf8'), text);
});

test('proxy refuses a context the kubeconfig does not have, naming it', async () => {
  const user = join(dir, 'config2');
  writeFileSync(user, served.kubeconfig('dev'));
  const r = await capture(run, ['--kubeconfig', user, '--context', 'prod']);
  assert.equal(r.code, 1);
  assert.match(r.err, /has no context "prod"/);
});
