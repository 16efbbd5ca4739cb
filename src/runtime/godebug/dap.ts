/**
 * A small Debug Adapter Protocol client for Delve's DAP server (`dlv dap`): Content-Length framed
 * JSON over TCP, requests matched to responses by `request_seq`, events handed to listeners.
 * `startDelve` spawns `dlv dap --listen=127.0.0.1:0` in a process group of its own and waits
 * for "DAP server listening at:" (as vscode-go's debug factory does), so `kill` can end Delve
 * and the program it debugs together.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { Emitter } from '../events';

export interface DapMessage {
  seq: number;
  type: 'request' | 'response' | 'event';
  command?: string;
  event?: string;
  request_seq?: number;
  success?: boolean;
  message?: string;
  body?: Record<string, unknown>;
}

export interface DapEvents {
  event: DapMessage;
  /** Every message that is not the answer to one of our requests (events, a relayed client's responses). */
  message: DapMessage;
  close: undefined;
}

/**
 * Our requests are numbered from here, so that when an editor's requests are relayed over the
 * same connection (`relay`) the adapter's answers can be told apart by `request_seq`.
 */
const OWN_SEQ_BASE = 1_000_000_000;

export class DapClient extends Emitter<DapEvents> {
  private seq = OWN_SEQ_BASE;
  private buffer = Buffer.alloc(0);
  private readonly pending = new Map<
    number,
    { resolve: (m: DapMessage) => void; reject: (e: Error) => void }
  >();
  private closed = false;

  private constructor(private readonly socket: Socket) {
    super();
    socket.on('data', (d: Buffer) => this.receive(d));
    socket.on('close', () => {
      this.closed = true;
      for (const p of this.pending.values()) p.reject(new Error('the debug adapter went away'));
      this.pending.clear();
      this.emit('close', undefined);
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<DapClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new DapClient(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a request and resolves with its response body; a failed response rejects. */
  async request<T = Record<string, unknown>>(command: string, args?: unknown): Promise<T> {
    const res = await this.send(command, args);
    if (!res.success) throw new Error(res.message ?? `${command} failed`);
    return (res.body ?? {}) as T;
  }

  /** Sends a request and resolves with the whole response, failed or not. */
  send(command: string, args?: unknown): Promise<DapMessage> {
    if (this.closed) return Promise.reject(new Error('the debug adapter went away'));
    const seq = ++this.seq;
    const json = JSON.stringify({ seq, type: 'request', command, arguments: args });
    this.socket.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
    return new Promise((resolve, reject) => this.pending.set(seq, { resolve, reject }));
  }

  /** Relays a message of another DAP client (an editor) to the adapter, as it is. */
  relay(msg: object): void {
    if (this.closed) return;
    const json = JSON.stringify(msg);
    this.socket.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(data: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, data]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString());
      if (!m) throw new Error('DAP: a message without Content-Length');
      const len = Number(m[1]);
      if (this.buffer.length < end + 4 + len) return;
      const msg = JSON.parse(this.buffer.subarray(end + 4, end + 4 + len).toString()) as DapMessage;
      this.buffer = this.buffer.subarray(end + 4 + len);
      const own = msg.type === 'response' && this.pending.get(msg.request_seq ?? -1);
      if (own) {
        this.pending.delete(msg.request_seq!);
        own.resolve(msg);
        continue;
      }
      if (msg.type === 'event') this.emit('event', msg);
      this.emit('message', msg);
    }
  }
}

export interface DelveServer {
  port: number;
  child: ChildProcess;
  /** Everything Delve and the debugged program printed so far. */
  output(): string;
  /** Each whole line printed from now on (the program's logs: Delve leaves its output local). */
  onLine(listener: (line: string) => void): () => void;
  /** Whether Delve has a live child (the debugged program; a zombie does not count). */
  programAlive(): boolean;
  /** Ends Delve and everything it started (its whole process group). */
  kill(): Promise<void>;
}

const LISTENING = /DAP server listening at: [^\s]*:(\d+)/;

/** Spawns `dlv dap` on a free loopback port and resolves once it listens. */
export function startDelve(
  dlv: string,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<DelveServer> {
  const child = spawn(dlv, ['dap', '--listen=127.0.0.1:0'], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  /** The unfinished last line of each stream (stdout and stderr interleave by chunks). */
  const partial = { stdout: '', stderr: '' };
  const lineListeners = new Set<(line: string) => void>();
  const onLine = (listener: (line: string) => void) => {
    lineListeners.add(listener);
    return () => lineListeners.delete(listener);
  };
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((r) => child.once('exit', r));
    // Delve starts the program in a process group of its own and does not ask the kernel to
    // kill it with its tracer, so the program's group goes first, then Delve's (its builds).
    for (const pid of childrenOf(child.pid)) signalGroup(pid);
    signalGroup(child.pid);
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void kill();
      reject(new Error(`Delve did not start listening: ${out.trim()}`));
    }, opts.timeoutMs ?? 30_000);
    const onData = (stream: 'stdout' | 'stderr', d: Buffer): void => {
      out += d.toString();
      const lines = (partial[stream] + d.toString()).split('\n');
      partial[stream] = lines.pop()!;
      for (const line of lines) for (const l of lineListeners) l(line);
      const m = LISTENING.exec(out);
      if (!m) return;
      clearTimeout(timer);
      const programAlive = () => childrenOf(child.pid!).some((pid) => stateOf(pid) !== 'Z');
      resolve({ port: Number(m[1]), child, output: () => out, onLine, kill, programAlive });
    };
    child.stdout!.on('data', (d: Buffer) => onData('stdout', d));
    child.stderr!.on('data', (d: Buffer) => onData('stderr', d));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not start Delve (${dlv}): ${err.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Delve exited with ${code} before listening: ${out.trim()}`));
    });
  });
}

function signalGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone (or not a group leader): the process itself then.
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

/** A process's state letter from /proc (`Z` for a zombie), '' when it is gone. */
function stateOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return '';
  }
}

/** Direct children of `pid`, from /proc (empty where there is no /proc). */
function childrenOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      // Field 4 of stat is the parent; the command name (field 2) may hold spaces, so count from ')'.
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}
