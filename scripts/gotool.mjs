// Builds the project's Go programs (tools/<name>/main.go) in scratch modules under
// .cache/<name>/<release>/: each requires what it imports at the pinned release, so what it
// reports is what that release's code does. A program is rebuilt when its source changes.
// Only Node built-ins here: the build runs the generators before node_modules exists.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubernetesRelease, root } from './kubernetes.mjs';

/** Runs `go` in `cwd` (at most two compiles at once: the machines have two cores). */
export function go(args, cwd, flags = '') {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'generating the Kubernetes API (generated/) needs Go on the PATH: it reads the pinned release with `go mod download`',
    );
  }
  return execFileSync('go', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 256 << 20,
    env: {
      ...process.env,
      GOFLAGS: `${process.env.GOFLAGS ?? ''} -p=2 ${flags}`.trim(),
      GOWORK: 'off',
    },
  });
}

/**
 * Builds (or reuses) tools/<name> for a release and answers the binary's path. `goMod` is the
 * scratch module's go.mod; `tidy` resolves its requirements with `go mod tidy`, otherwise the
 * build resolves them itself (-mod=mod: a module as large as k8s.io/kubernetes would make tidy
 * fetch the test dependencies of every package it imports).
 */
export function buildGoTool(name, goMod, { release = kubernetesRelease(), tidy = true } = {}) {
  const dir = join(root, '.cache', name, release);
  const binary = join(dir, process.platform === 'win32' ? `${name}.exe` : name);
  const source = join(root, 'tools', name, 'main.go');
  const copied = join(dir, 'main.go');
  if (
    existsSync(binary) &&
    existsSync(copied) &&
    readFileSync(copied, 'utf8') === readFileSync(source, 'utf8')
  )
    return binary;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'go.mod'), goMod);
  copyFileSync(source, copied);
  if (tidy) go(['mod', 'tidy'], dir);
  go(['build', '-o', binary, '.'], dir, tidy ? '' : '-mod=mod');
  return binary;
}
