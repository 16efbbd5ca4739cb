/**
 * The Go toolchain as the editor needs it: is a recent enough `go` on PATH, and where did a build
 * fail. `go build` / `go run` / `go vet` report compile errors as `file:line:col: message`
 * (paths relative to the directory the command ran in, under a `# package` header), with
 * continuation lines indented by a tab.
 */
import { execFile } from 'node:child_process';
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

export interface GoBuild {
  ok: boolean;
  /** What `go build` printed (its errors when it failed). */
  output: string;
  errors: BuildError[];
}

/**
 * `go build -o OUT PKG` in `cwd`: one build that many runs of the manager share (the chaos
 * report starts it ten times; `go run` would link it ten times).
 */
export function goBuild(
  cwd: string,
  out: string,
  pkg = './cmd',
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<GoBuild> {
  return new Promise((resolve) => {
    execFile(
      'go',
      ['build', '-o', out, pkg],
      { cwd, env, maxBuffer: 16 << 20, ...(signal ? { signal } : {}) },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        resolve({ ok: !err, output, errors: err ? parseBuildErrors(output, cwd) : [] });
      },
    );
  });
}
