/**
 * `reconcile-studio chaos --reconciler FILE --manifests DIR [--duration D] [--seed N] [--json]`:
 * the robustness report (runtime/chaos.ts) — a baseline run, then one run per fault class, each
 * judged against the baseline's final state. Exit status: 0 every case converged, 1 some did not
 * (or the run failed), 2 usage error.
 */
import { formatChaos } from './chaosreport';
import { parseSeed } from '../cluster/faults';
import { chaos, type ChaosReport } from '../runtime/chaos';
import { parseRunArgs } from './runargs';

const HELP = `Usage: reconcile-studio chaos --reconciler FILE --manifests PATH... [--duration 2m] [--seed N] [--json]

Runs the reconciler to the end of --duration without faults (the baseline), then once per fault
class from the same start (write-conflict, throttling, write-500, status-500, read-timeout,
watch-closed, watch-410, stale-cache, quota-exhausted) and reports for each whether the final
state (status included) is the baseline's, when it got there, and the reconciles and API calls
it took. Deterministic: the virtual clock and --seed (default 1).

Options:
  --reconciler FILE     the reconciler module (.ts or .js)
  --manifests PATH...   YAML files or folders to apply first; may be repeated
  --duration D          virtual time of each run, e.g. 90s, 10m (default 2m)
  --seed N              seed of the faults' probability draws (default 1)
  --json                print the report as one JSON document
  --in-process          run the reconciler in this thread (faster)
  -h, --help            show this help

For a Go operator: reconcile-studio chaos --go DIR --manifests PATH... (see chaos --go DIR --help).`;

export async function run(argv: string[]): Promise<number> {
  // A Go operator's report (gochaos.ts) runs its manager on the real clock.
  if (argv.some((a) => a === '--go' || a.startsWith('--go=')))
    return (await import('./gochaos')).run(argv);
  const args = parseRunArgs(
    'chaos',
    argv,
    HELP,
    { seed: { type: 'string' }, json: { type: 'boolean' }, 'in-process': { type: 'boolean' } },
    '2m',
  );
  if (typeof args === 'number') return args;
  const { values, reconciler, manifests, durationMs } = args;
  const seed = values.seed !== undefined ? parseSeed(values.seed as string) : undefined;
  if (typeof seed === 'string') {
    console.error(`chaos: ${seed}`);
    return 2;
  }
  let report: ChaosReport;
  try {
    report = await chaos({
      reconciler,
      manifests,
      durationMs,
      isolate: !values['in-process'],
      ...(seed !== undefined ? { seed } : {}),
    });
  } catch (err) {
    console.error(`chaos: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  console.log(values.json ? JSON.stringify(report, null, 2) : formatChaos(report));
  return report.cases.every((c) => c.converged) ? 0 : 1;
}
