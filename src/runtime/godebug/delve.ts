/**
 * Finding Delve: on the PATH, else in `$(go env GOPATH)/bin` where `go install` puts it. The
 * version the project pins is installed by `scripts/bootstrap.mjs` (and offered by the editor).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Keep in step with `DELVE_VERSION` in scripts/bootstrap.mjs. */
export const DELVE_MODULE = 'github.com/go-delve/delve/cmd/dlv';
export const DELVE_VERSION = 'v1.27.2';
export const DELVE_INSTALL = `go install ${DELVE_MODULE}@${DELVE_VERSION}`;
/**
 * The compiler flags Delve's debug mode builds with (gobuild.optflags, Go 1.10 and later):
 * optimisations and inlining off in every package, so each line and variable can be stopped at
 * and read. A build of ours that Delve then executes uses the same.
 */
export const DELVE_GCFLAGS = 'all=-N -l';
export const DELVE_MISSING = `Delve (dlv) was not found on the PATH or in GOPATH/bin; install it with \`${DELVE_INSTALL}\``;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path of `dlv`, or undefined when there is none. */
export async function findDelve(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (executable(join(dir, 'dlv'))) return join(dir, 'dlv');
  }
  try {
    const { stdout } = await run('go', ['env', 'GOPATH'], { env });
    for (const dir of stdout.trim().split(delimiter).filter(Boolean)) {
      if (executable(join(dir, 'bin', 'dlv'))) return join(dir, 'bin', 'dlv');
    }
  } catch {
    // No Go: no GOPATH to look in.
  }
  return undefined;
}
