/**
 * Warming a Go operator's build cache in the background when its workspace opens, so the first
 * Run Go Operator or Debug Go Operator does not spend minutes compiling controller-runtime and
 * client-go while the user waits.
 *
 * `go list -export -deps PKG` compiles every package the manager imports (export data needs the
 * compile) into the build cache without linking anything, and is quick once they are there. It
 * runs twice: with no flags (what `go run` compiles for Run Go Operator) and with Delve's
 * (optimisations off, what Debug Go Operator builds), at a low priority.
 */
import { DELVE_GCFLAGS } from './godebug/delve';
import { runGo, type GoRun } from './gotoolchain';

export interface WarmupOptions {
  /** The module's directory. */
  cwd: string;
  /** The manager's main package, as Run and Debug build it. */
  pkg: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface WarmupStep {
  /** What the step compiles for: `run` (no flags) or `debug` (Delve's flags). */
  build: 'run' | 'debug';
  result: GoRun;
  ms: number;
}

/** The two builds' flags, in the order they are warmed: Run's first, as it is the common one. */
export const WARMUP_BUILDS: ReadonlyArray<{ build: WarmupStep['build']; flags: string[] }> = [
  { build: 'run', flags: [] },
  { build: 'debug', flags: [`-gcflags=${DELVE_GCFLAGS}`] },
];

/**
 * Warms both builds, one after the other; stops at the first that fails or is aborted (the
 * user's own build then says why, at its file and line).
 */
export async function warmBuildCache(o: WarmupOptions): Promise<WarmupStep[]> {
  const steps: WarmupStep[] = [];
  for (const { build, flags } of WARMUP_BUILDS) {
    const started = performance.now();
    const result = await runGo(
      ['list', '-export', '-deps', ...flags, '-f', '{{.ImportPath}}', o.pkg],
      {
        cwd: o.cwd,
        background: true,
        ...(o.env ? { env: o.env } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      },
    );
    steps.push({ build, result, ms: performance.now() - started });
    if (!result.ok) break;
  }
  return steps;
}
