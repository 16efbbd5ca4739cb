/**
 * Where each phase of a reconcile lives in the controller-runtime the user's module builds with.
 * The version comes from the module itself (`go list -m -json sigs.k8s.io/controller-runtime`,
 * whose `Dir` is its source in the module cache), and every function and line is found in that
 * source — never a hard-coded line — so a version that moved or renamed one is refused with the
 * name of what is missing instead of being stepped wrongly.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const CONTROLLER_RUNTIME = 'sigs.k8s.io/controller-runtime';
/**
 * The oldest controller-runtime whose controller, client and cache reader have the shapes read
 * here (the typed client split and `(*CacheReader)` in `pkg/cache/internal`, since v0.15).
 */
export const OLDEST_SUPPORTED = [0, 15] as const;

/** What a stop at a breakpoint means; `phases.ts` turns it into a phase. */
export type StopRole =
  'dequeue' | 'reconcile' | 'cacheGet' | 'cacheList' | 'liveRead' | 'write' | 'status' | 'result';

export interface FunctionSymbol {
  /** Delve's location spec: package path, receiver without type parameters, method. */
  name: string;
  role: StopRole;
  /** The method, e.g. `Create` (writes and reads say which call it was). */
  method: string;
}

export interface LineSymbol {
  file: string;
  line: number;
  role: StopRole;
}

export interface PhaseSymbols {
  version: string;
  dir: string;
  functions: FunctionSymbol[];
  lines: LineSymbol[];
}

export class UnsupportedError extends Error {}

interface Decl {
  file: string;
  receiver: string;
  /** Receiver as declared, e.g. `c *Controller[request]`, matched up to the type name. */
  methods: string[];
  role: StopRole;
}

const CLIENT = `${CONTROLLER_RUNTIME}/pkg/client`;
const DECLS: Decl[] = [
  {
    file: 'pkg/client/typed_client.go',
    receiver: 'typedClient',
    methods: ['Get', 'List'],
    role: 'liveRead',
  },
  {
    file: 'pkg/client/unstructured_client.go',
    receiver: 'unstructuredClient',
    methods: ['Get', 'List'],
    role: 'liveRead',
  },
  {
    file: 'pkg/client/client.go',
    receiver: 'client',
    methods: ['Create', 'Update', 'Patch', 'Delete', 'DeleteAllOf', 'Apply'],
    role: 'write',
  },
  {
    file: 'pkg/client/client.go',
    receiver: 'subResourceClient',
    methods: ['Update', 'Patch', 'Apply'],
    role: 'status',
  },
  {
    file: 'pkg/cache/internal/cache_reader.go',
    receiver: 'CacheReader',
    methods: ['List'],
    role: 'cacheList',
  },
];

const PKG_OF_FILE: Record<string, string> = {
  'pkg/client/typed_client.go': CLIENT,
  'pkg/client/unstructured_client.go': CLIENT,
  'pkg/client/client.go': CLIENT,
  'pkg/cache/internal/cache_reader.go': `${CONTROLLER_RUNTIME}/pkg/cache/internal`,
};

/** The controller-runtime the module at `moduleDir` builds with, and its source directory. */
export async function controllerRuntimeOf(
  moduleDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ version: string; dir: string }> {
  let out: string;
  try {
    ({ stdout: out } = await run('go', ['list', '-m', '-json', CONTROLLER_RUNTIME], {
      cwd: moduleDir,
      env,
    }));
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new UnsupportedError(
      `${moduleDir} does not build with ${CONTROLLER_RUNTIME}: ${stderr || String(err)}`,
    );
  }
  const mod = JSON.parse(out) as { Version?: string; Dir?: string; Replace?: { Dir?: string } };
  const dir = mod.Replace?.Dir ?? mod.Dir;
  if (!mod.Version || !dir) {
    throw new UnsupportedError(
      `${CONTROLLER_RUNTIME} ${mod.Version ?? ''} is not in the module cache; run \`go mod download\``,
    );
  }
  return { version: mod.Version, dir };
}

/** `v0.24.1` → [0, 24]; undefined for anything else. */
function minorOf(version: string): [number, number] | undefined {
  const m = /^v(\d+)\.(\d+)\./.exec(version);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/**
 * Resolves every phase's breakpoint in controller-runtime's source at `dir`: functions by
 * their declaration, lines by the statement after the one that produces what the phase shows
 * (the reconcile's `reconcileID`, the cache lookup's `exists`, Reconcile's `result, err`).
 */
export function resolvePhaseSymbols(version: string, dir: string): PhaseSymbols {
  const v = minorOf(version);
  const [major, minor] = OLDEST_SUPPORTED;
  if (!v || v[0] < major || (v[0] === major && v[1] < minor)) {
    throw new UnsupportedError(
      `${CONTROLLER_RUNTIME} ${version} is not supported by the Go debugger (v${major}.${minor} or newer is needed)`,
    );
  }
  const missing: string[] = [];
  const sources = new Map<string, string[]>();
  const source = (file: string): string[] => {
    let lines = sources.get(file);
    if (!lines) {
      try {
        lines = readFileSync(join(dir, file), 'utf8').split('\n');
      } catch {
        lines = [];
      }
      sources.set(file, lines);
    }
    return lines;
  };
  const functions: FunctionSymbol[] = [];
  for (const d of DECLS) {
    for (const method of d.methods) {
      if (declLine(source(d.file), d.receiver, method) < 0) {
        missing.push(`(*${d.receiver}).${method} in ${d.file}`);
        continue;
      }
      functions.push({
        name: `${PKG_OF_FILE[d.file]}.(*${d.receiver}).${method}`,
        role: d.role,
        method,
      });
    }
  }
  const lines: LineSymbol[] = [];
  const after = (file: string, receiver: string, method: string, stmt: RegExp, role: StopRole) => {
    const src = source(file);
    const line = lineAfter(src, declLine(src, receiver, method), stmt);
    if (line < 0) missing.push(`${stmt.source} in (*${receiver}).${method} of ${file}`);
    else lines.push({ file: join(dir, file), line, role });
  };
  // The dequeue stop is where reconcileHandler has just made the reconcile's UUID, so the very
  // first phase already carries the reconcileID the manager logs and the result shows.
  after(
    'pkg/internal/controller/controller.go',
    'Controller',
    'reconcileHandler',
    /reconcileID := uuid\.NewUUID\(\)/,
    'dequeue',
  );
  after(
    'pkg/internal/controller/controller.go',
    'Controller',
    'reconcileHandler',
    /result, err := c\.Reconcile\(ctx, req\)/,
    'result',
  );
  after(
    'pkg/cache/internal/cache_reader.go',
    'CacheReader',
    'Get',
    /, exists, err := c\.indexer\.GetByKey\(/,
    'cacheGet',
  );
  if (missing.length > 0) {
    throw new UnsupportedError(
      `${CONTROLLER_RUNTIME} ${version} is not supported by the Go debugger: not found in its source: ${missing.join('; ')}`,
    );
  }
  return { version, dir, functions, lines };
}

/** 0-based index of `func (x *Receiver[...]) method(` in the file, or -1. */
function declLine(src: string[], receiver: string, method: string): number {
  const re = new RegExp(`^func \\(\\w+ \\*${receiver}(\\[[^\\]]*\\])?\\) ${method}\\(`);
  return src.findIndex((l) => re.test(l));
}

/**
 * The 1-based line of the first statement after the one matching `stmt` inside the function
 * declared at `from` (blank lines and comments skipped), or -1.
 */
function lineAfter(src: string[], from: number, stmt: RegExp): number {
  if (from < 0) return -1;
  for (let i = from + 1; i < src.length && !src[i].startsWith('func '); i++) {
    if (!stmt.test(src[i])) continue;
    for (let j = i + 1; j < src.length; j++) {
      const t = src[j].trim();
      if (t && !t.startsWith('//')) return j + 1;
    }
  }
  return -1;
}
