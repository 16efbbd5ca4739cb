/**
 * The build-cache warm-up of a Go operator workspace (runtime/gowarmup.ts), started a little
 * after the window opens and stopped the moment Run or Debug Go Operator starts its own build,
 * which then compiles only what the warm-up had not reached. Said in the output, not in a
 * notification: it is background work the user did not ask for.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { goModuleDirs } from './gooperator';
import type { Logger } from './output';
import { readSettings } from './settings';
import { formatDuration } from './model/timeformat';

/** After the window's own start (the cluster, the language server), not during it. */
const START_DELAY_MS = 5_000;

export class GoBuildWarmup implements vscode.Disposable {
  private abort: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private done = false;

  constructor(private readonly log: Logger) {}

  /** Schedules the warm-up of each operator module of the workspace, if trusted and enabled. */
  schedule(): void {
    // Once per window: activation and a later grant of trust both ask.
    if (this.timer || this.abort || this.done) return;
    if (!vscode.workspace.isTrusted || !readSettings().go.warmBuildCache) return;
    this.timer = setTimeout(() => void this.run(), START_DELAY_MS);
  }

  /** Stops the warm-up (Run or Debug Go Operator is building): what it compiled stays cached. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.abort) return;
    this.abort.abort();
    this.abort = undefined;
    this.log.info('Go build cache warm-up stopped: the operator is being built');
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.done = true;
    const abort = new AbortController();
    this.abort = abort;
    const { warmBuildCache } = await import('./engine');
    for (const dir of await operatorModules()) {
      if (abort.signal.aborted) return;
      const pkg = existsSync(join(dir, 'cmd')) ? './cmd' : '.';
      // The workspace folder itself reads as its name, not as its absolute path.
      const shown = vscode.workspace.asRelativePath(dir);
      const rel = shown === dir ? basename(dir) : shown;
      this.log.info(`warming the Go build cache for ${rel} (${pkg}) in the background`);
      const steps = await warmBuildCache({ cwd: dir, pkg, signal: abort.signal });
      if (abort.signal.aborted) return;
      const failed = steps.find((s) => !s.result.ok);
      if (failed) {
        // A module that does not build yet: the user's own build says why, at its file and line.
        this.log.info(
          `Go build cache warm-up of ${rel} stopped at the ${failed.build} build: ${lastLine(failed.result.output)}`,
        );
        continue;
      }
      this.log.info(
        `Go build cache warmed for ${rel}: ${steps.map((s) => `${s.build} build ${formatDuration(s.ms)}`).join(', ')}`,
      );
    }
    if (this.abort === abort) this.abort = undefined;
  }

  dispose(): void {
    this.cancel();
  }
}

/** The workspace's Go modules that require controller-runtime (by go.mod, without parsing Go). */
async function operatorModules(): Promise<string[]> {
  return (await goModuleDirs()).filter((dir) => {
    try {
      return readFileSync(join(dir, 'go.mod'), 'utf8').includes('sigs.k8s.io/controller-runtime');
    } catch {
      return false;
    }
  });
}

function lastLine(output: string): string {
  return output.trim().split('\n').at(-1) ?? '';
}
