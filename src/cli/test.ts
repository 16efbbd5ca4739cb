/**
 * `reconcile-studio test [--manifests DIR] -- CMD ARGS…`: the fake cluster as envtest's control
 * plane. A fresh cluster is served on loopback with a kubeconfig of its own (never the user's),
 * CMD runs with KUBECONFIG pointing at it and USE_EXISTING_CLUSTER=true — so
 * `envtest.Environment.Start()` uses it instead of starting etcd and kube-apiserver — and the
 * command's exit status is ours. Like envtest's control plane it runs no controller manager unless
 * `--controllers` asks for one.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCluster } from '../cluster/builtins';
import { loadManifests } from '../cluster/manifests';
import { parseServiceMapping } from '../cluster/admission/webhook/client';
import { startServer } from '../cluster/endpoints/server';

const HELP = `Usage: reconcile-studio test [options] -- COMMAND [ARGS...]

Run COMMAND (an operator's test suite, e.g. "go test ./...") against a fresh fake cluster, in
place of envtest's etcd and kube-apiserver: COMMAND gets KUBECONFIG (a kubeconfig for the
cluster, in a new temp folder) and USE_EXISTING_CLUSTER=true. The cluster stops when COMMAND
ends, and the exit status is COMMAND's.

By default the cluster is envtest's control plane exactly: an apiserver and no controller
manager, so no garbage collection, namespaces stay Terminating, no default ServiceAccount and no
pods run (the "kubernetes" Service is there, as the apiserver keeps it).

Options:
  --manifests PATH      YAML file or folder to load first (repeatable; CRDs and Namespaces first)
  --controllers         also run the built-in controllers, as a cluster with a controller manager
                        and a node would (GC, namespaces, quota, Deployments, ReplicaSets, pods)
  --no-controllers      the default (kept for scripts that pass it)
  --webhook-service NS/NAME=HOST:PORT
                        where a webhook's clientConfig.service NS/NAME is served on this
                        machine (repeatable); its TLS name stays NAME.NS.svc
  -h, --help            show this help
`;

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function run(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      options: {
        manifests: { type: 'string', multiple: true },
        controllers: { type: 'boolean' },
        'no-controllers': { type: 'boolean' },
        'webhook-service': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(
      `reconcile-studio test: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}`,
    );
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (command.length === 0) {
    console.error(`reconcile-studio test: no command to run after "--"\n\n${HELP}`);
    return 2;
  }

  let webhookServices: Map<string, string>;
  try {
    webhookServices = new Map((values['webhook-service'] ?? []).map(parseServiceMapping));
  } catch (err) {
    console.error(`reconcile-studio test: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  if (values.controllers && values['no-controllers']) {
    console.error(
      `reconcile-studio test: --controllers and --no-controllers contradict each other\n\n${HELP}`,
    );
    return 2;
  }
  const controllers = values.controllers === true;
  const cluster = createCluster({ controllers, controllerManager: controllers, webhookServices });
  if (values.manifests?.length) {
    const res = loadManifests(
      cluster,
      values.manifests.map((p) => resolve(p)),
    );
    for (const e of res.errors) console.error(`${e.file}:${e.line}: ${e.message}`);
    if (res.errors.length) {
      cluster.close();
      return 1;
    }
  }
  const server = await startServer({ cluster, host: '127.0.0.1', port: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'reconcile-studio-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfig(), { mode: 0o600 });

  try {
    return await runCommand(command, {
      ...process.env,
      KUBECONFIG: kubeconfig,
      USE_EXISTING_CLUSTER: 'true',
    });
  } finally {
    await server.close();
    cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the command with our stdio; signals sent to us go to it; resolves to its exit status. */
function runCommand(command: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env });
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    for (const s of FORWARDED) process.on(s, forward);
    const finish = (code: number) => {
      for (const s of FORWARDED) process.off(s, forward);
      done(code);
    };
    child.once('error', (err: NodeJS.ErrnoException) => {
      console.error(
        err.code === 'ENOENT'
          ? `reconcile-studio test: command not found: ${command[0]}`
          : `reconcile-studio test: cannot run ${command[0]}: ${err.message}`,
      );
      finish(127);
    });
    child.once('exit', (code, signal) => {
      // A command killed by a signal exits as shells report it: 128 + the signal's number.
      finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
