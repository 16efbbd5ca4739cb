/**
 * The two clusters the differential suite compares: the reference control plane (a real etcd,
 * kube-apiserver and kube-controller-manager of the pinned release, from scripts/realapi) and the
 * fake cluster served by the CLI (`node dist/cli.js serve`, its controllers on as the reference's
 * are). Both are children of this process and stop with it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { buildRealapi } from '../../scripts/realapi/build.mjs';
import { startControlPlane } from '../../scripts/realapi/controlplane.mjs';

export interface Side {
  /** "reference" or "fake": how the report names the answer. */
  readonly name: 'reference' | 'fake';
  readonly server: string;
  readonly token: string;
  readonly kubeconfig: string;
  stop(): Promise<void>;
}

const root = join(__dirname, '..', '..');

export async function startReference(): Promise<Side> {
  const binDir = buildRealapi();
  const dir = mkdtempSync(join(tmpdir(), 'differential-reference-'));
  const cp = await startControlPlane({ binDir, dir });
  return {
    name: 'reference',
    server: cp.server,
    token: cp.token,
    kubeconfig: cp.kubeconfig,
    stop: async () => {
      await cp.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The fake as a user runs it: the built CLI, HTTPS on loopback, a kubeconfig of its own. */
export async function startFake(name: Side['name'] = 'fake'): Promise<Side> {
  const dir = mkdtempSync(join(tmpdir(), 'differential-fake-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [join(root, 'dist', 'cli.js'), 'serve', '--kubeconfig', kubeconfig, '--context', 'fake'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`fake cluster not serving after 60 s:\n${out}`)),
      60_000,
    );
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Kubeconfig:')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fake cluster exited (${code}):\n${out}`));
    });
  });
  child.stdout.resume();
  const cfg = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { name: string; cluster: { server: string } }[];
    users: { name: string; user: { token: string } }[];
  };
  const cluster = cfg.clusters.find((c) => c.name === 'fake') ?? cfg.clusters[0]!;
  const user = cfg.users.find((u) => u.name === 'fake') ?? cfg.users[0]!;
  return {
    name,
    server: cluster.cluster.server,
    token: user.user.token,
    kubeconfig,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
