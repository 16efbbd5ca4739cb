/**
 * A Go manager process (a kubebuilder project's `cmd/main.go`, or any command) run against a
 * cluster: spawned with its own kubeconfig, its output split into lines and its zap JSON logs
 * parsed, its `/metrics` scraped, its build errors and last words kept when it exits. No editor
 * code here: the VS Code layer and the bench both drive this class.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { groupAlive } from '../util/processgroup';
import { Emitter } from './events';
import { parseBuildErrors, type BuildError } from './gotoolchain';
import { parsePromText, type Sample } from './promtext';
import { parseZapLine, type ZapEntry } from './zaplog';

export const DEFAULT_RUN_COMMAND = 'go run ./cmd';
/** The user a manager run by the editor authenticates as; the audit log's events carry it. */
export const GO_OPERATOR_USER = 'go-operator';

/** Output lines kept for the message shown when the process exits. */
const LAST_LINES = 40;
/**
 * How long a stopped manager gets to shut down cleanly before it is killed. controller-runtime
 * waits up to its GracefulShutdownTimeout (30 s) for a reconcile that does not heed its context;
 * against the editor's own cluster there is nothing to hand over (no Lease), and Stop is to
 * answer within 2 s, this grace and the reaping below included.
 */
export const STOP_GRACE_MS = 1200;
/** After the SIGKILL, how long the group's processes may take to be gone (reaped). */
const GROUP_REAP_MS = 500;
const GROUP_POLL_MS = 50;

/** Resolves once no live process of the group `pgid` is left, or at `deadline` (epoch ms). */
async function groupGone(pgid: number, deadline: number): Promise<void> {
  while (Date.now() < deadline && groupAlive(pgid))
    await new Promise((r) => setTimeout(r, GROUP_POLL_MS));
}

export interface GoManagerOptions {
  /** A shell command line; `DEFAULT_RUN_COMMAND` gets the manager flags appended. */
  command: string;
  /** The module directory the command runs in. */
  cwd: string;
  /** Path of the kubeconfig the process uses (its own user's token). */
  kubeconfig: string;
  /** Loopback port for `--metrics-bind-address`. */
  metricsPort: number;
  env?: NodeJS.ProcessEnv;
}

export interface ManagerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The process was stopped by `stop()`, not on its own. */
  stopped: boolean;
  lastLines: string[];
  buildErrors: BuildError[];
  /** A Go panic's first line ("panic: …"), when the output has one. */
  panic?: string;
}

export interface GoManagerEvents {
  /** Every output line, stdout and stderr, as printed. */
  line: { text: string; stream: 'stdout' | 'stderr' };
  /** Lines that are zap JSON entries, parsed. */
  log: ZapEntry;
  exit: ManagerExit;
}

/**
 * The flags the scaffold's main.go defines, set so the editor can watch the manager: metrics
 * over plain HTTP on a free loopback port (`--metrics-secure=true` would send a TokenReview and
 * a SubjectAccessReview per scrape), no health probes, V(5) logs as JSON with sub-second times
 * (the default RFC 3339 encoder drops them), no leader election (one process, no wait for a Lease).
 */
export function managerFlags(metricsPort: number): string[] {
  return [
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    '--metrics-secure=false',
    '--health-probe-bind-address=0',
    '--zap-log-level=5',
    '--zap-encoder=json',
    '--zap-time-encoding=rfc3339nano',
    '--leader-elect=false',
  ];
}

/**
 * The command line to run: the default command with `-v` and the flags appended; a custom command as
 * written (it gets the flags in `$RECONCILE_STUDIO_MANAGER_FLAGS`, e.g.
 * `make run ARGS="$RECONCILE_STUDIO_MANAGER_FLAGS"`).
 */
export function commandLine(command: string, metricsPort: number): string {
  const c = command.trim();
  // -v: the build names each package it compiles, so a long first build shows its progress.
  return c === DEFAULT_RUN_COMMAND ? `go run -v ./cmd ${managerFlags(metricsPort).join(' ')}` : c;
}

/** A free TCP port on 127.0.0.1 (the OS picks it; it stays free until someone binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export class GoManagerProcess extends Emitter<GoManagerEvents> {
  private child: ChildProcess | undefined;
  private readonly last: string[] = [];
  private output = '';
  private stopping = false;
  private exited: Promise<ManagerExit> | undefined;

  constructor(readonly opts: GoManagerOptions) {
    super();
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && !this.child.killed;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process; resolves when it has been spawned. */
  start(): Promise<void> {
    const line = commandLine(this.opts.command, this.opts.metricsPort);
    const child = spawn(line, {
      cwd: this.opts.cwd,
      shell: true,
      // Its own process group: `go run` starts the built binary as a child, and stop() signals both.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...this.opts.env,
        KUBECONFIG: this.opts.kubeconfig,
        RECONCILE_STUDIO_MANAGER_FLAGS: managerFlags(this.opts.metricsPort).join(' '),
      },
    });
    this.child = child;
    this.lines(child.stdout!, 'stdout');
    this.lines(child.stderr!, 'stderr');
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        const exit = this.exitOf(code, signal);
        this.emit('exit', exit);
        resolve(exit);
      });
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
  }

  private lines(stream: NodeJS.ReadableStream, name: 'stdout' | 'stderr'): void {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      for (const p of parts) this.onLine(p, name);
    });
    stream.on('end', () => {
      if (rest) this.onLine(rest, name);
      rest = '';
    });
  }

  private onLine(text: string, stream: 'stdout' | 'stderr'): void {
    this.last.push(text);
    if (this.last.length > LAST_LINES) this.last.shift();
    const entry = parseZapLine(text);
    // Build output is kept whole until the manager logs: that is where compile errors are.
    if (!entry && this.output.length < 1_000_000) this.output += `${text}\n`;
    this.emit('line', { text, stream });
    if (entry) this.emit('log', entry);
  }

  private exitOf(code: number | null, signal: NodeJS.Signals | null): ManagerExit {
    const panicLine = this.last.find((l) => l.startsWith('panic: '));
    return {
      code,
      signal,
      stopped: this.stopping,
      lastLines: [...this.last],
      buildErrors: parseBuildErrors(this.output, this.opts.cwd),
      ...(panicLine ? { panic: panicLine } : {}),
    };
  }

  /** Resolves when the process has exited (immediately if it never started). */
  wait(): Promise<ManagerExit | undefined> {
    return this.exited ?? Promise.resolve(undefined);
  }

  /** SIGTERM to the process group (the manager's signal handler shuts it down), SIGKILL after a grace period. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping = true;
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, s);
      } catch {
        // Already gone.
      }
    };
    const stopAt = Date.now();
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    // The shell is gone, but the manager it started (or `go run`'s binary) may still be shutting
    // down: wait for the whole group, as the SIGKILL above is sure to end it.
    await groupGone(child.pid, stopAt + STOP_GRACE_MS + GROUP_REAP_MS);
    clearTimeout(timer);
  }

  /** One scrape of the manager's `/metrics`; rejects while it is not serving yet. */
  scrape(timeoutMs = 2000): Promise<Sample[]> {
    return new Promise((resolve, reject) => {
      const req = get(
        { host: '127.0.0.1', port: this.opts.metricsPort, path: '/metrics', timeout: timeoutMs },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(parsePromText(text))
              : reject(new Error(`/metrics answered ${res.statusCode}`)),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error('/metrics timed out')));
      req.on('error', reject);
    });
  }
}
