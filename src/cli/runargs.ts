/**
 * The arguments every command that runs a reconciler shares (`simulate`, `chaos`): --reconciler,
 * --manifests (and positionals after it), --duration, -h/--help, plus the command's own options.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { parseDuration } from '../runtime/simulation';

export interface RunArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  reconciler: string;
  manifests: string[];
  durationMs: number;
}

/** The parsed arguments, or the exit status when there is nothing to run (0 help, 2 usage error). */
export function parseRunArgs(
  cmd: string,
  argv: string[],
  help: string,
  options: NonNullable<ParseArgsConfig['options']>,
  defaultDuration: string,
): RunArgs | number {
  let values: RunArgs['values'];
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        reconciler: { type: 'string' },
        manifests: { type: 'string', multiple: true },
        duration: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...options,
      },
      allowPositionals: true,
    }));
  } catch (err) {
    console.error(`${cmd}: ${(err as Error).message}\n\n${help}`);
    return 2;
  }
  if (values.help) {
    console.log(help);
    return 0;
  }
  const reconciler = values.reconciler as string | undefined;
  if (!reconciler) {
    console.error(`${cmd}: --reconciler is required\n\n${help}`);
    return 2;
  }
  let durationMs: number;
  try {
    durationMs = parseDuration((values.duration as string | undefined) ?? defaultDuration);
  } catch (err) {
    console.error(`${cmd}: ${(err as Error).message}`);
    return 2;
  }
  // `--manifests a b c`: positionals after the flag are manifests too.
  const manifests = [...((values.manifests as string[] | undefined) ?? []), ...positionals];
  return { values, reconciler, manifests, durationMs };
}
