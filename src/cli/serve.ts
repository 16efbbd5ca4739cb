/**
 * `reconcile-studio serve`: the fake cluster over HTTPS with a kubeconfig for kubectl and any
 * client, optional manifests to start with, and an optional state file that survives restarts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createCluster } from '../cluster/builtins';
import { loadManifests } from '../cluster/manifests';
import { parseServiceMapping } from '../cluster/admission/webhook/client';
import { startServer } from '../cluster/endpoints/server';
import { FaultInjector, parseSeed, readFaultsFile } from '../cluster/faults';
import { installKubeconfig } from '../cluster/auth/kubeconfig';
import type { InstalledKubeconfig } from '../cluster/auth/kubeconfig';
import { persist, restoreState } from '../cluster/storage/state';
import type { ClusterState, Persistence } from '../cluster/storage/state';

const HELP = `Usage: reconcile-studio serve [options]

Serve the fake Kubernetes cluster over HTTPS on 127.0.0.1 and write a kubeconfig for it.

Options:
  --port N              port to listen on (default: a free port)
  --host ADDR           address to listen on (default: 127.0.0.1)
  --kubeconfig FILE     kubeconfig to add the cluster to (default: a new file in a temp folder);
                        an existing file is merged into, its current-context kept if it has one,
                        and the added entries are removed when serve stops
  --context NAME        context/cluster/user name in the kubeconfig (default: reconcile-studio)
  --manifests PATH      YAML file or folder to load at start (repeatable; CRDs and Namespaces first)
  --state FILE          keep the cluster in FILE (and FILE.wal): every acknowledged write is on
                        disk; restored at start (objects restored win over --manifests)
  --pod-ready-delay MS  how long new pods take to become Ready (default: 2000)
  --pod-termination-delay MS
                        how long a pod deleted gracefully stays Terminating (at most its
                        grace period; default: 0)
  --pod-run-time MS     how long the containers of a pod that runs to completion (a Job's,
                        restartPolicy Never/OnFailure) run before they exit 0 (default: 5000;
                        a pod's reconcile-studio/run-seconds and /exit-code annotations win)
  --no-controllers      do not run the workload controllers (Deployment, ReplicaSet, Job,
                        CronJob, ..., pods)
  --watch-timeout S     end every watch after at most S seconds (clients then re-watch)
  --min-request-timeout S
                        a watch without timeoutSeconds ends after S to 2*S seconds, as
                        kube-apiserver's flag (default: 1800; 0: never)
  --webhook-service NS/NAME=HOST:PORT
                        where a webhook's clientConfig.service NS/NAME is served on this
                        machine (repeatable); its TLS name stays NAME.NS.svc
  --faults FILE         inject the faults FILE describes into requests (errors, latency, watches)
  --seed N              seed of the faults' probability draws (default 1)
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
        'pod-termination-delay': { type: 'string' },
        'pod-run-time': { type: 'string' },
        'no-controllers': { type: 'boolean' },
        'log-requests': { type: 'boolean' },
        'watch-timeout': { type: 'string' },
        'min-request-timeout': { type: 'string' },
        faults: { type: 'string' },
        'webhook-service': { type: 'string', multiple: true },
        seed: { type: 'string' },
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
  const podTerminationDelayMs =
    values['pod-termination-delay'] !== undefined
      ? Number(values['pod-termination-delay'])
      : undefined;
  if (podTerminationDelayMs !== undefined && !(podTerminationDelayMs >= 0)) {
    console.error(
      'reconcile-studio serve: --pod-termination-delay must be a number of milliseconds',
    );
    return 2;
  }
  const podRunTimeMs =
    values['pod-run-time'] !== undefined ? Number(values['pod-run-time']) : undefined;
  if (podRunTimeMs !== undefined && !(podRunTimeMs >= 0)) {
    console.error('reconcile-studio serve: --pod-run-time must be a number of milliseconds');
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
  const minRequestTimeoutSeconds =
    values['min-request-timeout'] !== undefined ? Number(values['min-request-timeout']) : undefined;
  if (
    minRequestTimeoutSeconds !== undefined &&
    !(Number.isInteger(minRequestTimeoutSeconds) && minRequestTimeoutSeconds >= 0)
  ) {
    console.error(
      'reconcile-studio serve: --min-request-timeout must be a whole number of seconds',
    );
    return 2;
  }

  let webhookServices: Map<string, string>;
  try {
    webhookServices = new Map((values['webhook-service'] ?? []).map(parseServiceMapping));
  } catch (err) {
    console.error(`reconcile-studio serve: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }

  let faults: FaultInjector | undefined;
  const seed = values.seed !== undefined ? parseSeed(values.seed) : undefined;
  if (typeof seed === 'string') {
    console.error(`reconcile-studio serve: ${seed}`);
    return 2;
  }
  if (values.faults !== undefined) {
    try {
      faults = new FaultInjector(readFaultsFile(resolve(values.faults)), seed);
    } catch (err) {
      console.error(`reconcile-studio serve: ${err instanceof Error ? err.message : String(err)}`);
      return 2;
    }
  }

  let state: ClusterState | undefined;
  const stateFile = values.state ? resolve(values.state) : undefined;
  if (stateFile) {
    const restored = restoreState(stateFile);
    if (!restored.ok) {
      console.error(`reconcile-studio serve: ${restored.error}`);
      return 1;
    }
    for (const n of restored.notes) console.log(n);
    for (const w of restored.warnings) console.error(`reconcile-studio serve: ${w}`);
    state = restored.state;
  }

  const cluster = createCluster({
    controllers: !values['no-controllers'],
    webhookServices,
    ...(podReadyDelayMs !== undefined ? { podReadyDelayMs } : {}),
    ...(podTerminationDelayMs !== undefined ? { podTerminationDelayMs } : {}),
    ...(podRunTimeMs !== undefined ? { podRunTimeMs } : {}),
    ...(state ? { state } : {}),
  });
  if (values.manifests?.length) {
    const res = loadManifests(
      cluster,
      values.manifests.map((p) => resolve(p)),
      { keepStored: state !== undefined },
    );
    for (const e of res.errors) {
      console.error(`${e.file}:${e.line}: ${e.message}`);
    }
    console.log(`Loaded ${res.applied.length} objects from ${values.manifests.join(', ')}`);
    if (res.kept.length) {
      // The restored object is the newer one: re-applying the manifest would silently revert it.
      console.log(
        `Kept ${res.kept.length} objects as restored from ${stateFile} rather than re-applying them from the manifests (delete them to load the manifests' version): ${res.kept
          .map((k) => `${k.kind}/${k.namespace ? `${k.namespace}/` : ''}${k.name}`)
          .join(', ')}`,
      );
    }
  }
  let persistence: Persistence | undefined;
  if (stateFile) {
    try {
      persistence = await persist(cluster, stateFile);
    } catch (err) {
      console.error(
        `reconcile-studio serve: cannot write the state to ${stateFile}: ${err instanceof Error ? err.message : String(err)}`,
      );
      cluster.close();
      return 1;
    }
  }
  const stopSaving = async () => {
    try {
      await persistence?.close();
    } catch (err) {
      console.error(
        `reconcile-studio serve: could not save the state to ${stateFile}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  };
  let server;
  try {
    server = await startServer({
      cluster,
      port,
      host: values.host ?? '127.0.0.1',
      ...(values['log-requests'] ? { onRequest: logRequest } : {}),
      ...(maxWatchSeconds ? { maxWatchSeconds } : {}),
      ...(minRequestTimeoutSeconds !== undefined ? { minRequestTimeoutSeconds } : {}),
      ...(faults ? { faults } : {}),
    });
  } catch (err) {
    console.error(
      `reconcile-studio serve: cannot listen: ${err instanceof Error ? err.message : String(err)}`,
    );
    await stopSaving();
    cluster.close();
    return 1;
  }
  const tempDir = values.kubeconfig ? undefined : mkdtempSync(join(tmpdir(), 'reconcile-studio-'));
  let kubeconfig: InstalledKubeconfig;
  try {
    kubeconfig = installKubeconfig(
      values.kubeconfig ? resolve(values.kubeconfig) : join(tempDir!, 'kubeconfig'),
      {
        server: server.url,
        caPem: server.caPem,
        token: server.token,
        ...(values.context ? { contextName: values.context } : {}),
      },
    );
  } catch (err) {
    console.error(
      `reconcile-studio serve: cannot write the kubeconfig: ${err instanceof Error ? err.message : String(err)}`,
    );
    await server.close();
    await stopSaving();
    cluster.close();
    return 1;
  }
  // Taken out again however the process ends short of a kill -9. Another writer's lock on the
  // file (kubectl config ...) leaves the entries there, said so: true when they are gone.
  const removeKubeconfig = (): boolean => {
    let removed = true;
    try {
      kubeconfig.remove();
    } catch (err) {
      removed = false;
      const n = kubeconfig.name;
      console.error(
        `reconcile-studio serve: cannot take the context "${n}" out of ${kubeconfig.file}: ${err instanceof Error ? err.message : String(err)}. ` +
          `It is left there: kubectl --kubeconfig ${kubeconfig.file} config delete-context ${n} (and delete-cluster ${n}, delete-user ${n})`,
      );
    }
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    return removed;
  };
  process.once('exit', removeKubeconfig);
  console.log(`Serving the fake cluster at ${server.url}`);
  if (faults) console.log(`Injecting ${faults.size} faults from ${values.faults}`);
  console.log(`Kubeconfig: ${kubeconfig.file}`);
  if (kubeconfig.keptCurrentContext !== undefined) {
    console.log(
      `Added the context "${kubeconfig.name}" to ${kubeconfig.file} and left its current-context ("${kubeconfig.keptCurrentContext}") as it was; the context is removed when serve stops`,
    );
    console.log(
      `Try: kubectl --kubeconfig ${kubeconfig.file} --context ${kubeconfig.name} get namespaces`,
    );
  } else console.log(`Try: kubectl --kubeconfig ${kubeconfig.file} get namespaces`);

  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  await stopSaving();
  cluster.close();
  process.off('exit', removeKubeconfig);
  return removeKubeconfig() ? 0 : 1;
}
