/**
 * `reconcile-studio chaos --go DIR --manifests PATH... [--duration D] [--settle D] [--seed N]
 * [--json]`: the robustness report of a Go operator (runtime/gochaos.ts) — its manager built once
 * and run against a fresh served cluster per fault class, on the real clock. `chaos` hands its
 * arguments here when they name `--go`. Exit status as `chaos`: 0 every case converged, 1 some
 * did not (or the run failed), 2 usage error.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseSeed } from '../cluster/faults';
import {
  DEFAULT_GO_DURATION_MS,
  DEFAULT_GO_SETTLE_MS,
  goChaos,
  GoChaosCancelled,
  type GoChaosReport,
} from '../runtime/gochaos';
import { checkGoVersion, goVersion } from '../runtime/gotoolchain';
import { parseDuration } from '../runtime/simulation';
import { summaryWords } from '../runtime/chaosverdict';
import { formatChaos, seconds } from './chaosreport';

const HELP = `Usage: reconcile-studio chaos --go DIR --manifests PATH... [--duration ${DEFAULT_GO_DURATION_MS / 1000}s] [--settle ${DEFAULT_GO_SETTLE_MS / 1000}s] [--seed N] [--json]

Builds the controller-runtime manager of the Go module DIR once (go build ./cmd), runs it
unmodified against a fresh served fake cluster holding the manifests without faults (the
baseline), then once per fault class (write-conflict, throttling, write-500, status-500,
read-timeout, watch-closed, watch-410, stale-cache, quota-exhausted), and reports for each
whether the final state (status included) is the baseline's, when it got there, and the
reconciles (the manager's controller_runtime_reconcile_total) and API calls (the cluster's audit
record of its user) it took. On the real clock: a run ends once the manager has written nothing
for --settle, or at --duration; runs go one after another. Leader election is off.

Options:
  --go DIR              the Go module holding the manager (its ./cmd package)
  --manifests PATH...   YAML files or folders to apply first (CRDs included); may be repeated
  --duration D          the longest a run may take, e.g. 8s, 1m (default ${DEFAULT_GO_DURATION_MS / 1000}s)
  --settle D            quiet time that makes a run steady (default ${DEFAULT_GO_SETTLE_MS / 1000}s)
  --seed N              seed of the faults' probability draws (default 1)
  --json                print the report as one JSON document
  -h, --help            show this help`;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Record<(typeof SIGNALS)[number], number> = {
  SIGINT: 2,
  SIGTERM: 15,
  SIGHUP: 1,
};

export async function run(argv: string[]): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        go: { type: 'string' },
        manifests: { type: 'string', multiple: true },
        duration: { type: 'string' },
        settle: { type: 'string' },
        seed: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    }));
  } catch (err) {
    console.error(`chaos: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const moduleDir = values.go as string | undefined;
  if (!moduleDir) {
    console.error(`chaos: --go needs the Go module's folder\n\n${HELP}`);
    return 2;
  }
  // `--manifests a b c`: positionals after the flag are manifests too.
  const manifests = [...((values.manifests as string[] | undefined) ?? []), ...positionals];
  let durationMs: number;
  let settleMs: number;
  try {
    durationMs = values.duration
      ? parseDuration(values.duration as string)
      : DEFAULT_GO_DURATION_MS;
    settleMs = values.settle ? parseDuration(values.settle as string) : DEFAULT_GO_SETTLE_MS;
  } catch (err) {
    console.error(`chaos: ${(err as Error).message}`);
    return 2;
  }
  const seed = values.seed !== undefined ? parseSeed(values.seed as string) : undefined;
  if (typeof seed === 'string') {
    console.error(`chaos: ${seed}`);
    return 2;
  }
  const problem = checkGoVersion(await goVersion());
  if (problem) {
    console.error(`chaos: ${problem}`);
    return 1;
  }
  let report: GoChaosReport;
  // The manager runs in a process group of its own, which a Ctrl-C at the terminal does not
  // reach: a signal stops it (and its cluster) before the command ends.
  const ac = new AbortController();
  let caught: (typeof SIGNALS)[number] | undefined;
  const handlers = SIGNALS.map((sig) => {
    const h = (): void => {
      console.error(`chaos: ${sig}, stopping the manager`);
      caught = sig;
      ac.abort();
    };
    process.on(sig, h);
    return () => process.off(sig, h);
  });
  try {
    report = await goChaos({
      moduleDir: resolve(moduleDir),
      manifests: manifests.map((m) => resolve(m)),
      durationMs,
      settleMs,
      signal: ac.signal,
      ...(seed !== undefined ? { seed } : {}),
      ...(values.json ? {} : { onRun: (name: string) => console.error(`chaos: running ${name}`) }),
    });
  } catch (err) {
    if (err instanceof GoChaosCancelled && caught) return 128 + SIGNAL_NUMBERS[caught];
    console.error(`chaos: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    handlers.forEach((off) => off());
  }
  console.log(values.json ? JSON.stringify(report, null, 2) : formatGoChaos(report));
  return report.cases.every((c) => c.converged) ? 0 : 1;
}

/**
 * The readable Go report: which runtime it judged and on which clock, then the table. The words
 * for a baseline or a case cut off before it settled are the editor panel's (chaosverdict.ts).
 */
export function formatGoChaos(r: GoChaosReport): string {
  const note = `Go operator: its manager, on the real clock (times from its first request; each run watched up to ${seconds(r.durationMs)}, steady after ${seconds(r.settleMs)} with no write and no requeue due).`;
  return `${note}\n${summaryWords(r, seconds)}\n${formatChaos(r)}`;
}
