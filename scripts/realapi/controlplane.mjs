// The reference control plane on loopback: etcd (the version the release requires, built beside
// it), kube-apiserver configured as
// controller-runtime's envtest configures it (a token file with a system:masters user, RBAC,
// service-account keys, the ServiceAccount admission plugin off), and kube-controller-manager with
// every controller (--controllers=*) and leader election off. No kubelet and no scheduler: pods
// stay Pending and unscheduled, as in any cluster without nodes.
// Every process is a child of the caller and is stopped with it (stop(), or the caller's exit).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A port nobody listens on now (the kernel's pick, released at once). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function delay(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** GET path with the token; resolves to the status code, 0 when nothing answers. */
function probe(server, token, path) {
  return new Promise((resolve) => {
    const req = request(
      `${server}${path}`,
      { headers: { Authorization: `Bearer ${token}` }, rejectUnauthorized: false, timeout: 2000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Starts one process with its output in DIR/NAME.log; it dies with the caller. */
function startProcess(dir, name, bin, args) {
  const log = openSync(join(dir, `${name}.log`), 'a');
  const child = spawn(bin, args, { stdio: ['ignore', log, log] });
  child.once('error', (err) => console.error(`[realapi] ${name}: ${err.message}`));
  return child;
}

/** Ends a child: SIGTERM, then SIGKILL when it is still alive after `graceMs`. */
async function endProcess(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function writeKeys(dir) {
  const key = join(dir, 'sa.key');
  if (!existsSync(key))
    execFileSync('openssl', ['genrsa', '-out', key, '2048'], { stdio: 'ignore' });
  execFileSync('openssl', ['rsa', '-in', key, '-pubout', '-out', join(dir, 'sa.pub')], {
    stdio: 'ignore',
  });
}

function kubeconfigText(server, token) {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: reference',
    `  cluster: {server: "${server}", insecure-skip-tls-verify: true}`,
    'users:',
    '- name: admin',
    `  user: {token: "${token}"}`,
    'contexts:',
    '- name: reference',
    '  context: {cluster: reference, user: admin}',
    'current-context: reference',
    '',
  ].join('\n');
}

/**
 * Starts etcd, kube-apiserver and (unless `controllers` is false) kube-controller-manager from the
 * binaries in `binDir`, with their state and logs in `dir`. Resolves once the apiserver's /readyz
 * answers 200 and the controller-manager has made the default namespace's service account (its
 * controllers are then running). `apiserverArgs` are more kube-apiserver flags (an audit log, say).
 * Answers { server, token, kubeconfig, pids, stop() }.
 */
export async function startControlPlane({
  binDir,
  dir,
  controllers = true,
  readyTimeoutMs = 120_000,
  apiserverArgs = [],
}) {
  mkdirSync(join(dir, 'etcd'), { recursive: true });
  mkdirSync(join(dir, 'certs'), { recursive: true });
  const [etcdClient, etcdPeer, port] = [await freePort(), await freePort(), await freePort()];
  const children = [];
  const stop = async () => {
    // Dependants first, etcd last: the apiserver flushes to etcd as it stops. The exit hook stays
    // until all are gone, so a caller that exits midway still takes the rest down with it.
    for (const c of [...children].reverse()) await endProcess(c);
    process.off('exit', killAll);
  };
  const killAll = () => children.forEach((c) => c.kill('SIGKILL'));
  process.once('exit', killAll);
  try {
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    children.push(
      startProcess(dir, 'etcd', join(binDir, 'etcd'), [
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
        '--unsafe-no-fsync',
      ]),
    );
    writeKeys(dir);
    const token = randomBytes(16).toString('hex');
    writeFileSync(join(dir, 'tokens.csv'), `${token},admin,admin-uid,system:masters\n`, {
      mode: 0o600,
    });
    const server = `https://127.0.0.1:${port}`;
    children.push(
      startProcess(dir, 'kube-apiserver', join(binDir, 'kube-apiserver'), [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${join(dir, 'certs')}`,
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
        '--authorization-mode=RBAC',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        `--service-account-issuer=${server}`,
        `--service-account-key-file=${join(dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
        '--disable-admission-plugins=ServiceAccount',
        ...apiserverArgs,
      ]),
    );
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigText(server, token), { mode: 0o600 });
    const deadline = Date.now() + readyTimeoutMs;
    const waitFor = async (what, path) => {
      while ((await probe(server, token, path)) !== 200) {
        const dead = children.find((c) => c.exitCode !== null);
        if (dead) throw new Error(`${dead.spawnfile} exited (${dead.exitCode}); see ${dir}`);
        if (Date.now() > deadline)
          throw new Error(`${what} not ready after ${readyTimeoutMs} ms; see ${dir}`);
        await delay(250);
      }
    };
    await waitFor('kube-apiserver', '/readyz');
    if (controllers) {
      children.push(
        startProcess(dir, 'kube-controller-manager', join(binDir, 'kube-controller-manager'), [
          `--kubeconfig=${kubeconfig}`,
          '--controllers=*',
          '--leader-elect=false',
          `--service-account-private-key-file=${join(dir, 'sa.key')}`,
          `--root-ca-file=${join(dir, 'certs', 'apiserver.crt')}`,
          '--use-service-account-credentials=false',
          // Nothing scrapes its metrics or health here: no listening port to collide with another run.
          '--secure-port=0',
        ]),
      );
      await waitFor(
        'kube-controller-manager',
        '/api/v1/namespaces/default/serviceaccounts/default',
      );
    }
    return { server, token, kubeconfig, pids: children.map((c) => c.pid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The CA the apiserver generated for its serving certificate (for clients that verify it). */
export function servingCertificate(dir) {
  return readFileSync(join(dir, 'certs', 'apiserver.crt'), 'utf8');
}
