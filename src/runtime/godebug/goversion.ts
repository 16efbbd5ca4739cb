/**
 * Whether the Go on PATH is one the installed Delve can debug. Delve refuses a binary built by a
 * Go outside its range (`pkg/goversion`'s Compatible: older than MinSupportedVersionOfGo, or
 * newer than MaxSupportedVersionOfGo's minor) — but only after building it. We read the same
 * range from Delve's own source in the module cache (where `go install` left it) and check
 * `go env GOVERSION` first, so a mismatch is said before anything is built or started, naming
 * both versions; when that source is not there, Delve's own refusal is translated instead.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { goVersion, type GoVersion } from '../gotoolchain';
import { DELVE_MODULE } from './delve';

const run = promisify(execFile);

interface MajorMinor {
  major: number;
  minor: number;
}

export interface DelveGoRange {
  /** Delve's version, as `dlv version` prints it ("1.27.2"). */
  delve: string;
  min: MajorMinor;
  max: MajorMinor;
}

const show = (v: MajorMinor) => `${v.major}.${v.minor}`;

/** The supported range from Delve's `pkg/goversion/compat.go`; undefined if it is not there. */
export function parseCompat(source: string): { min: MajorMinor; max: MajorMinor } | undefined {
  const num = (name: string) => Number(new RegExp(`\\b${name}\\s*=\\s*(\\d+)`).exec(source)?.[1]);
  const range = {
    min: { major: num('MinSupportedVersionOfGoMajor'), minor: num('MinSupportedVersionOfGoMinor') },
    max: { major: num('MaxSupportedVersionOfGoMajor'), minor: num('MaxSupportedVersionOfGoMinor') },
  };
  return Object.values(range).every((v) => v.major >= 0 && v.minor >= 0) ? range : undefined;
}

/** The Go release range `dlv` supports, read from its source; undefined when unknown. */
export async function delveGoRange(
  dlv: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DelveGoRange | undefined> {
  try {
    const { stdout } = await run(dlv, ['version'], { env, timeout: 30_000 });
    const delve = /Version: (\S+)/.exec(stdout)?.[1];
    if (!delve) return undefined;
    const cache = (await run('go', ['env', 'GOMODCACHE'], { env, timeout: 30_000 })).stdout.trim();
    const repo = DELVE_MODULE.replace(/\/cmd\/dlv$/, '');
    const compat = join(cache, `${repo}@v${delve}`, 'pkg', 'goversion', 'compat.go');
    const range = parseCompat(readFileSync(compat, 'utf8'));
    return range && { delve, ...range };
  } catch {
    return undefined;
  }
}

/** Delve's Compatible over `go`'s major.minor: undefined when it can debug it, else why not. */
export function unsupportedGo(go: GoVersion, r: DelveGoRange): string | undefined {
  const before = (a: MajorMinor, b: MajorMinor) =>
    a.major < b.major || (a.major === b.major && a.minor < b.minor);
  const goName = `Go ${go.version.replace(/^go/, '')}`;
  const range = `Delve ${r.delve}, which debugs Go ${show(r.min)} to ${show(r.max)}`;
  if (before(go, r.min))
    return `${goName} is too old for ${range}: put Go ${show(r.min)} or newer on PATH.`;
  if (!before(go, { major: r.max.major, minor: r.max.minor + 1 }))
    return `${goName} is too new for ${range}: install a newer Delve (\`go install ${DELVE_MODULE}@latest\`) or put Go ${show(r.max)} on PATH.`;
  return undefined;
}

/** Delve's own refusal of a Go version (its pkg/goversion messages), said with both versions. */
export function explainDelveRefusal(text: string, delve = 'installed'): string | undefined {
  const old =
    /Go version (\S+) is too old for this version of Delve \(minimum supported version (\d+\.\d+)/.exec(
      text,
    );
  if (old)
    return `Go ${old[1]} is too old for the ${delve} Delve (it needs Go ${old[2]} or newer): put a newer Go on PATH.`;
  const young =
    /Version of Delve is too old for Go version (\S+) \(maximum supported version (\d+\.\d+)/.exec(
      text,
    );
  if (young)
    return `Go ${young[1]} is too new for the ${delve} Delve (it supports Go up to ${young[2]}): install a newer Delve (\`go install ${DELVE_MODULE}@latest\`) or put Go ${young[2]} on PATH.`;
  return undefined;
}

/** Checks the Go on PATH against `dlv` before anything is built; the message, or undefined. */
export async function delveGoProblem(
  dlv: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const [go, range] = await Promise.all([goVersion('go', env), delveGoRange(dlv, env)]);
  return go && range ? unsupportedGo(go, range) : undefined;
}
