/**
 * `reconcile-studio serve`: the fake cluster over HTTPS with a kubeconfig for kubectl and any
 * client, optional manifests to start with, and an optional state file that survives restarts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Cluster } from '../cluster/cluster';
import { loadManifests } from '../cluster/manifests';
import { startServer } from '../cluster/server';
import { autosave, readStateFile } from '../cluster/state';
import type { ClusterState } from '../cluster/state';

const HELP = `Usage: reconcile-studio serve [options]

Serve the fake Kubernetes cluster over HTTPS on 127.0.0.1 and write a kubeconfig for it.

Options:
  --port N              port to listen on (default: a free port)
  --host ADDR           address to listen on (default: 127.0.0.1)
  --kubeconfig FILE     where to write the kubeconfig (default: a file in a new temp folder)
  --context NAME        context/cluster/user name in the kubeconfig (default: reconcile-studio)
  --manifests PATH      YAML file or folder to load at start (repeatable; CRDs and Namespaces first)
  --state FILE          save the cluster to FILE on change and restore it at start
  --pod-ready-delay MS  how long new pods take to become Ready (default: 2000)
  --no-controllers      do not run the Deployment/ReplicaSet/pod controllers
  --watch-timeout S     end every watch after at most S seconds (clients then re-watch)
  --log-requests        print each request (method, path, Accept, User-Agent) to stderr
  -h, --help            show this help
`;

/** One line per request: what a client really sends (its Accept and User-Agent included). */
function logRequest(req: IncomingMessage): void {
  const accept = req.headers.accept ?? '-';
  const agent = req.headers['user-agent'] ?? '-';
  console.error(`${req.method ?? 'GET'} ${req.url ?? '/'} accept="${accept}" agent="${agent}"`);
}

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        manifests: { type: 'string', multiple: true },
        state: { type: 'string' },
        'pod-ready-delay': { type: 'string' },
        'no-controllers': { type: 'boolean' },
        'log-requests': { type: 'boolean' },
        'watch-timeout': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(
      `reconcile-studio serve: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}`,
    );
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const port = values.port !== undefined ? Number(values.port) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`reconcile-studio serve: --port must be a port number, got "${values.port}"`);
    return 2;
  }
  const podReadyDelayMs =
    values['pod-ready-delay'] !== undefined ? Number(values['pod-ready-delay']) : undefined;
  if (podReadyDelayMs !== undefined && !(podReadyDelayMs >= 0)) {
    console.error('reconcile-studio serve: --pod-ready-delay must be a number of milliseconds');
    return 2;
  }
  const maxWatchSeconds =
    values['watch-timeout'] !== undefined ? Number(values['watch-timeout']) : undefined;
  if (
    maxWatchSeconds !== undefined &&
    !(Number.isInteger(maxWatchSeconds) && maxWatchSeconds > 0)
  ) {
    console.error('reconcile-studio serve: --watch-timeout must be a whole number of seconds');
    return 2;
  }

  let state: ClusterState | undefined;
  const stateFile = values.state ? resolve(values.state) : undefined;
  if (stateFile) {
    const r = readStateFile(stateFile);
    if (r.kind === 'loaded') {
      state = r.state;
      console.log(`Restored ${r.state.objects.length} objects from ${stateFile}`);
    } else if (r.kind === 'corrupt') {
      console.error(
        `reconcile-studio serve: the state file ${stateFile} could not be read (${r.error}); moved it to ${r.movedTo} and started empty`,
      );
    }
  }

  const cluster = new Cluster({
    controllers: !values['no-controllers'],
    ...(podReadyDelayMs !== undefined ? { podReadyDelayMs } : {}),
    ...(state ? { state } : {}),
  });
  if (values.manifests?.length) {
    const res = loadManifests(
      cluster,
      values.manifests.map((p) => resolve(p)),
    );
    for (const e of res.errors) {
      console.error(`${e.file}:${e.line}: ${e.message}`);
    }
    console.log(`Loaded ${res.applied.length} objects from ${values.manifests.join(', ')}`);
  }
  const stopSaving = stateFile ? autosave(cluster, stateFile) : undefined;
  let server;
  try {
    server = await startServer({
      cluster,
      port,
      host: values.host ?? '127.0.0.1',
      ...(values['log-requests'] ? { onRequest: logRequest } : {}),
      ...(maxWatchSeconds ? { maxWatchSeconds } : {}),
    });
  } catch (err) {
    console.error(
      `reconcile-studio serve: cannot listen: ${err instanceof Error ? err.message : String(err)}`,
    );
    stopSaving?.();
    cluster.close();
    return 1;
  }
  const kubeconfigPath = values.kubeconfig
    ? resolve(values.kubeconfig)
    : join(mkdtempSync(join(tmpdir(), 'reconcile-studio-')), 'kubeconfig');
  writeFileSync(kubeconfigPath, server.kubeconfig(values.context), { mode: 0o600 });
  console.log(`Serving the fake cluster at ${server.url}`);
  console.log(`Kubeconfig: ${kubeconfigPath}`);
  console.log(`Try: kubectl --kubeconfig ${kubeconfigPath} get namespaces`);

  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  stopSaving?.();
  await server.close();
  cluster.close();
  return 0;
}
