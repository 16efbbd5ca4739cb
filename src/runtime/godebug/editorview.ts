/**
 * What an editor (VS Code) sees of Delve in a Go debug session: the user's own breakpoints, and
 * phase stops focused on the user's frames. The phase breakpoints the Go debugger needs are set
 * through Delve directly, never added to the editor's breakpoint model: DAP's
 * `setFunctionBreakpoints` and `setBreakpoints` replace what was set before (all function
 * breakpoints; one source's line breakpoints), so each such request of the editor is sent on with
 * ours added after its own, and its answer is cut back to what the editor asked for. Breakpoint
 * events about ours are dropped. The Breakpoints view then lists the user's breakpoints only.
 *
 * While a phase stop is held for the user, the frames outside the user's module are marked
 * `subtle`, and a stop with a user frame is reported with the reason `phase`: VS Code then focuses
 * the innermost frame of the user's (its editor and Variables show the user's code and locals)
 * rather than controller-runtime's. For the reasons `breakpoint`, `function breakpoint` and `step`
 * VS Code focuses the top frame whatever its hint, so a stop with no user frame (dequeue, result)
 * is reported as a `step`, and its top frame, controller-runtime's, is the one shown.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { DapMessage } from './dap';

/** The Go debugger's own breakpoints: function location specs, and lines by file. */
export interface InternalBreakpoints {
  functions: string[];
  lines: Map<string, number[]>;
}

/** A request as a DAP client sends it. */
export interface DapRequest {
  seq: number;
  type: 'request';
  command: string;
  arguments?: Record<string, unknown>;
}

interface SourceBreakpoint {
  line: number;
}
interface FunctionBreakpoint {
  name: string;
}
interface StackFrame {
  presentationHint?: string;
  source?: { path?: string };
}

export class EditorView {
  /** The editor's requests whose answer lists ours after its own: request seq → its own count. */
  private readonly trimmed = new Map<number, number>();
  /** Delve's ids of our breakpoints. */
  private readonly internalIds = new Set<number>();
  /** The stop shown now is a held phase: controller-runtime's frames are marked subtle. */
  private held = false;
  /** The goroutine held at that phase (DAP thread id): listed first in the Call Stack. */
  private heldThread: number | undefined;
  private readonly lines: Map<string, number[]>;

  constructor(
    private readonly internal: InternalBreakpoints,
    private readonly moduleDir: string,
  ) {
    this.lines = new Map([...internal.lines].map(([file, l]) => [resolve(file), l]));
  }

  /**
   * Sets our breakpoints through `request` (before the editor's configuration requests); resolves
   * with what Delve could not set, in words (empty when all are set).
   */
  async setInternal(request: <T>(command: string, args: unknown) => Promise<T>): Promise<string[]> {
    type Answer = { breakpoints: Array<{ id?: number; verified: boolean; message?: string }> };
    const problems: string[] = [];
    const note = (answer: Answer, names: string[]) =>
      answer.breakpoints.forEach((b, i) => {
        if (b.id !== undefined) this.internalIds.add(b.id);
        if (!b.verified) problems.push(`${names[i]}: ${b.message ?? 'not verified'}`);
      });
    const fns = this.internal.functions;
    note(
      await request<Answer>('setFunctionBreakpoints', {
        breakpoints: fns.map((name) => ({ name })),
      }),
      fns,
    );
    for (const [path, lines] of this.lines)
      note(
        await request<Answer>('setBreakpoints', {
          source: { path },
          breakpoints: lines.map((line) => ({ line })),
        }),
        lines.map((l) => `${path}:${l}`),
      );
    return problems;
  }

  /** A request of the editor as Delve is to get it: its breakpoints and ours. */
  toAdapter(m: DapRequest): DapRequest {
    if (m.command === 'setFunctionBreakpoints') {
      const own = (m.arguments?.breakpoints as FunctionBreakpoint[] | undefined) ?? [];
      const names = new Set(own.map((b) => b.name));
      const ours = this.internal.functions.filter((n) => !names.has(n)).map((name) => ({ name }));
      this.trimmed.set(m.seq, own.length);
      return { ...m, arguments: { ...m.arguments, breakpoints: [...own, ...ours] } };
    }
    if (m.command === 'setBreakpoints') {
      const args = m.arguments as { source?: { path?: string }; breakpoints?: SourceBreakpoint[] };
      const path = args.source?.path;
      const lines = path === undefined ? undefined : this.lines.get(resolve(path));
      if (!lines) return m;
      const own = args.breakpoints ?? [];
      const taken = new Set(own.map((b) => b.line));
      const ours = lines.filter((l) => !taken.has(l)).map((line) => ({ line }));
      this.trimmed.set(m.seq, own.length);
      // `lines` is the deprecated twin of `breakpoints`; Delve reads `breakpoints`.
      return { ...m, arguments: { ...args, breakpoints: [...own, ...ours], lines: undefined } };
    }
    return m;
  }

  /** A message of Delve as the editor is to get it; undefined to drop it. */
  toEditor(m: DapMessage): DapMessage | undefined {
    if (m.type === 'response' && m.request_seq !== undefined && this.trimmed.has(m.request_seq)) {
      const count = this.trimmed.get(m.request_seq)!;
      this.trimmed.delete(m.request_seq);
      const all = (m.body?.breakpoints as Array<{ id?: number }> | undefined) ?? [];
      for (const b of all.slice(count)) if (b.id !== undefined) this.internalIds.add(b.id);
      return m.body ? { ...m, body: { ...m.body, breakpoints: all.slice(0, count) } } : m;
    }
    if (m.type === 'event' && m.event === 'breakpoint') {
      const id = (m.body?.breakpoint as { id?: number } | undefined)?.id;
      return id !== undefined && this.internalIds.has(id) ? undefined : m;
    }
    if (m.type === 'response' && m.command === 'threads' && m.success && this.held) {
      // The worker's goroutine heads the list: among a manager's dozens of goroutines (informers,
      // HTTP connections), the one Reconcile runs on is the one the user came to see, and VS
      // Code's Call Stack, a virtual list, draws only the rows in view.
      const threads = (m.body?.threads as Array<{ id: number }> | undefined) ?? [];
      const held = threads.filter((t) => t.id === this.heldThread);
      const rest = threads.filter((t) => t.id !== this.heldThread);
      return { ...m, body: { ...m.body, threads: [...held, ...rest] } };
    }
    if (m.type === 'response' && m.command === 'stackTrace' && m.success && this.held) {
      const frames = (m.body?.stackFrames as StackFrame[] | undefined) ?? [];
      return {
        ...m,
        body: {
          ...m.body,
          stackFrames: frames.map((f) =>
            f.source?.path && this.inModule(f.source.path)
              ? f
              : { ...f, presentationHint: 'subtle' },
          ),
        },
      };
    }
    return m;
  }

  /**
   * A phase stop held for the user, as the editor is to get it: described, without our
   * breakpoints' ids, reason `phase` when the stack has a frame of the user's module to focus
   * (dequeue and result run in controller-runtime alone: `step`, which focuses the top frame).
   */
  heldStop(m: DapMessage, description: string, userFrame: boolean): DapMessage {
    const reason = userFrame ? 'phase' : 'step';
    const body: Record<string, unknown> = { ...m.body, reason, description };
    delete body.hitBreakpointIds;
    this.held = true;
    this.heldThread = typeof m.body?.threadId === 'number' ? m.body.threadId : undefined;
    return { ...m, body };
  }

  /** A stop of the user's own (a line breakpoint, a pause) goes to the editor as Delve sent it. */
  ownStop(m: DapMessage): DapMessage {
    this.held = false;
    return m;
  }

  private inModule(path: string): boolean {
    const rel = relative(this.moduleDir, path);
    return !rel.startsWith('..') && !isAbsolute(rel);
  }
}
