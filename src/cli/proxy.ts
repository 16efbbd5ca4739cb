/**
 * `reconcile-studio proxy`: the recording proxy (src/proxy) in front of one context of the user's
 * kubeconfig, with a kubeconfig of its own for the operator (or kubectl) to use, and each call
 * printed as it completes. The user's kubeconfig is only read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AuditEvent } from '../cluster/endpoints/audit';
import { FaultInjector, parseSeed, readFaultsFile } from '../cluster/faults';
import { defaultKubeconfig, loadUpstream } from '../proxy/upstream';
import { startProxy } from '../proxy/server';
import { writeProxyKubeconfig } from '../proxy/kubeconfig';

const HELP = `Usage: reconcile-studio proxy [options]

Forward requests to a real cluster (one context of your kubeconfig, with its credentials) through
a recording proxy on 127.0.0.1, and write a kubeconfig that points at the proxy. Every request is
recorded as the embedded cluster records its own (verb, resource, code, latency, objects).

Options:
  --kubeconfig FILE        your kubeconfig (default: the first file of $KUBECONFIG, else
                           ~/.kube/config); only read, never written
  --context NAME           the context to forward to (default: the file's current-context)
  --write-kubeconfig FILE  where to write the proxy's kubeconfig (default: a new file in a temp
                           folder, removed when the proxy stops)
  --port N                 port to listen on (default: a free port)
  --faults FILE            answer the requests FILE's rules match with their faults instead of
                           forwarding them
  --seed N                 seed of the faults' probability draws (default 1)
  --log-requests           print each call as it completes: verb, URI, code, ms, user agent
  -h, --help               show this help
`;

/** One completed call as `--log-requests` prints it. */
export function formatCall(e: AuditEvent): string {
  const ms = e.end !== undefined ? `${e.end - e.start}ms` : '-';
  const fault = e.fault ? ` fault=${e.fault}` : '';
  return `${e.verb} ${e.requestURI} ${e.code} ${ms} agent="${e.userAgent}"${fault}`;
}

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        'write-kubeconfig': { type: 'string' },
        port: { type: 'string' },
        faults: { type: 'string' },
        seed: { type: 'string' },
        'log-requests': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (err) {
    console.error(
      `reconcile-studio proxy: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}`,
    );
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const port = values.port !== undefined ? Number(values.port) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`reconcile-studio proxy: --port must be a port number, got "${values.port}"`);
    return 2;
  }
  let faults: FaultInjector | undefined;
  if (values.faults !== undefined) {
    const seed = values.seed !== undefined ? parseSeed(values.seed) : 1;
    if (typeof seed === 'string') {
      console.error(`reconcile-studio proxy: ${seed}`);
      return 2;
    }
    faults = new FaultInjector(readFaultsFile(values.faults), seed);
  }
  const userFile = resolve(values.kubeconfig ?? defaultKubeconfig());
  let upstream;
  try {
    upstream = await loadUpstream({
      kubeconfig: userFile,
      ...(values.context !== undefined ? { context: values.context } : {}),
    });
  } catch (err) {
    console.error(`reconcile-studio proxy: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const proxy = await startProxy({ upstream, port, ...(faults ? { faults } : {}) });
  const tempDir = values['write-kubeconfig']
    ? undefined
    : mkdtempSync(join(tmpdir(), 'reconcile-studio-proxy-'));
  const file = resolve(values['write-kubeconfig'] ?? join(tempDir ?? '', 'kubeconfig'));
  try {
    writeProxyKubeconfig(file, proxy.kubeconfig(), userFile);
  } catch (err) {
    await proxy.close();
    console.error(`reconcile-studio proxy: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const off = values['log-requests']
    ? proxy.audit.subscribe((e) => {
        if (e.stage === 'ResponseComplete') console.error(formatCall(e));
      })
    : () => undefined;
  console.log(
    `Recording proxy to the context "${upstream.context}" (${upstream.server.origin}) at ${proxy.url}`,
  );
  if (faults) console.log(`Injecting ${faults.size} faults from ${values.faults}`);
  console.log(`Kubeconfig: ${file}`);
  console.log(`Try: kubectl --kubeconfig ${file} get namespaces`);
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  off();
  await proxy.close();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  return 0;
}
