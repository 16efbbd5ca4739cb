/**
 * The Go toolchain as the editor needs it: is a recent enough `go` on PATH, and where did a build
 * fail. `go build` / `go run` / `go vet` report compile errors as `file:line:col: message`
 * (paths relative to the directory the command ran in, under a `# package` header), with
 * continuation lines indented by a tab.
 */
import { execFile, spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The oldest Go release controller-runtime v0.24 builds with. */
export const MIN_GO = { major: 1, minor: 24 };
export const GO_NEEDED = `Go ${MIN_GO.major}.${MIN_GO.minor} or newer is needed to run Go operators`;

export interface GoVersion {
  /** As `go env GOVERSION` prints it: "go1.26.8". */
  version: string;
  major: number;
  minor: number;
}

/** The Go on PATH (or `goBin`), undefined when there is none or it cannot run. */
export function goVersion(
  goBin = 'go',
  env: NodeJS.ProcessEnv = process.env,
): Promise<GoVersion | undefined> {
  return new Promise((resolve) => {
    execFile(goBin, ['env', 'GOVERSION'], { env, timeout: 30_000 }, (err, stdout) => {
      if (err) return resolve(undefined);
      const version = stdout.trim();
      const m = /^go(\d+)\.(\d+)/.exec(version);
      resolve(m ? { version, major: Number(m[1]), minor: Number(m[2]) } : undefined);
    });
  });
}

/** Undefined when `v` is recent enough; otherwise the message to show. */
export function checkGoVersion(v: GoVersion | undefined): string | undefined {
  if (!v) return `${GO_NEEDED}; none was found on PATH.`;
  if (v.major > MIN_GO.major || (v.major === MIN_GO.major && v.minor >= MIN_GO.minor))
    return undefined;
  return `${GO_NEEDED}; ${v.version} was found.`;
}

export interface BuildError {
  /** Absolute path. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based; 1 when the compiler gave no column. */
  column: number;
  message: string;
  /** The `# package` header it came under, if any. */
  pkg?: string;
}

const LOCATION = /^(\S.*?\.go):(\d+)(?::(\d+))?: (.*)$/;

/** The compile errors in a go command's output; relative paths are resolved against `cwd`. */
export function parseBuildErrors(output: string, cwd: string): BuildError[] {
  const out: BuildError[] = [];
  let pkg: string | undefined;
  for (const raw of output.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith('# ')) {
      pkg = line.slice(2).trim();
      continue;
    }
    if (line.startsWith('\t') && out.length) {
      out[out.length - 1].message += `\n${line.trim()}`;
      continue;
    }
    const m = LOCATION.exec(line);
    if (!m) continue;
    const file = m[1].replace(/^\.\//, '');
    out.push({
      file: isAbsolute(file) ? file : join(cwd, file),
      line: Number(m[2]),
      column: m[3] ? Number(m[3]) : 1,
      message: m[4],
      ...(pkg ? { pkg } : {}),
    });
  }
  return out;
}

export interface GoRun {
  ok: boolean;
  /** Everything it printed, stdout and stderr as they came. */
  output: string;
  /** Stopped by the signal, not failed by itself. */
  aborted: boolean;
}

export interface GoRunOptions {
  /** The module's directory: where the command runs and relative error paths point. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Each line the command prints, as it prints it (with `-v`, the packages being compiled). */
  onLine?: (line: string) => void;
  /** At a lower scheduling priority, so a build the user asks for meanwhile is not slowed. */
  background?: boolean;
}

export interface GoBuild extends GoRun {
  /** The compile errors of a failed build. */
  errors: BuildError[];
}

export interface GoBuildOptions extends GoRunOptions {
  /** The binary to write. */
  out: string;
  /** The main package, `./cmd` unless said. */
  pkg?: string;
  /** Flags before the package, as `-v` or `-gcflags=all=-N -l`. */
  flags?: string[];
}

/**
 * `go build [flags] -o OUT PKG` in `cwd`: one build that many runs of the manager share (the
 * chaos report starts it ten times; `go run` would link it ten times), or the debug build Delve
 * then executes, whose `-v` lines say what is being compiled while it goes.
 */
export async function goBuild(o: GoBuildOptions): Promise<GoBuild> {
  const r = await runGo(['build', ...(o.flags ?? []), '-o', o.out, o.pkg ?? './cmd'], o);
  return { ...r, errors: r.ok ? [] : parseBuildErrors(r.output, o.cwd) };
}

/** Runs `go ARGS` in `cwd`, passing each printed line to `onLine` as it comes. */
export function runGo(args: string[], o: GoRunOptions): Promise<GoRun> {
  return new Promise((resolve) => {
    const child = spawn('go', args, {
      cwd: o.cwd,
      env: o.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (o.background && child.pid !== undefined) {
      try {
        setPriority(child.pid, BACKGROUND_PRIORITY);
      } catch {
        // Not allowed here: it runs at normal priority.
      }
    }
    let output = '';
    let partial = '';
    const take = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      if (!o.onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) o.onLine(line.replace(/\r$/, ''));
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let spawnError: Error | undefined;
    child.on('error', (err) => (spawnError = err));
    child.on('close', (code) => {
      if (partial && o.onLine) o.onLine(partial);
      const aborted = o.signal?.aborted === true;
      if (spawnError && !aborted) output += `${output ? '\n' : ''}${spawnError.message}`;
      resolve({ ok: code === 0 && !spawnError && !aborted, output, aborted });
    });
  });
}

/** A nice value: below the editor's and the user's own builds, as `nice -n 10` runs it. */
const BACKGROUND_PRIORITY = 10;
