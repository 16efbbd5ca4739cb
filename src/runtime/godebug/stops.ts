/**
 * Reads a stop of a Go manager under Delve into the phase it is: which phase breakpoint the top
 * frame is at, and what it shows (`stackTrace`, `scopes`, `variables`). Writes and live reads
 * are stepped out of first (one `stepOut`), so the phase carries the API server's answer from
 * the cluster's own record of this process's requests. It talks DAP through a `DapChannel`, so
 * the same reader serves our own client (tests, bench) and a VS Code debug session.
 */
import { isAbsolute, relative } from 'node:path';
import type { AuditEvent, AuditFilter } from '../../cluster/endpoints/audit';
import {
  controllerNameOf,
  kindOfType,
  objectMetaOf,
  parseNamespacedName,
  parseResult,
  queueDecision,
  shortFunction,
  summarize,
  verbOf,
  type GoCall,
  type GoPhase,
} from './phases';
import type { ReconcileSymbol } from './reconcilers';
import type { PhaseSymbols, StopRole } from './symbols';

export type Stopped = { reason: string; threadId: number };

/** DAP as the reader needs it: requests, and the next `stopped` event. */
export interface DapChannel {
  request<T = Record<string, unknown>>(command: string, args?: unknown): Promise<T>;
  nextStop(): Promise<Stopped>;
}

export interface PhaseReaderOptions {
  moduleDir: string;
  symbols: PhaseSymbols;
  reconcilers: ReconcileSymbol[];
  /** The cluster's record of requests, and the user this process authenticates as. */
  audit: { events(filter?: AuditFilter): AuditEvent[] };
  user: string;
  /**
   * The object the cluster holds now, by Go kind and key, where the cluster is in this process
   * (the embedded one). A cache read's answer is not in any request: at the stop the cache holds
   * what the cluster sent it, so the cluster's copy stands for it (an event behind at most).
   */
  lookup?: (kind: string, namespace: string, name: string) => unknown;
}

interface Frame {
  id: number;
  name: string;
  line: number;
  source?: { path?: string };
}

interface Variable {
  name: string;
  value: string;
  type?: string;
  variablesReference: number;
}

export class PhaseReader {
  private auditSeq = 0;
  /** Breakpoint names (full package path) → what a stop there means. */
  readonly byName = new Map<string, { role: StopRole; method: string }>();
  private readonly byLine = new Map<string, StopRole>();
  /** The same functions as stack frames name them (package path shortened, no type parameters). */
  private readonly byFrame = new Map<string, { role: StopRole; method: string }>();
  /** The goroutine held at the last phase (DAP thread id). */
  threadId = 0;
  held: GoPhase | undefined;
  /** Whether the stack at the last phase has a frame in the user's module (dequeue's has not). */
  userFrame = false;

  constructor(
    private readonly channel: DapChannel,
    private readonly opts: PhaseReaderOptions,
  ) {
    for (const f of opts.symbols.functions) this.byName.set(f.name, f);
    for (const r of opts.reconcilers)
      this.byName.set(r.name, { role: 'reconcile', method: 'Reconcile' });
    for (const [name, f] of this.byName) this.byFrame.set(shortFunction(name), f);
    // Keyed by the path inside controller-runtime's source: a client may show the module cache
    // through another path (a symlink, a substitutePath) than `go list` gave.
    for (const l of opts.symbols.lines)
      this.byLine.set(`${relative(opts.symbols.dir, l.file)}:${l.line}`, l.role);
  }

  /** Function breakpoints to set: every phase function and the user's Reconcile methods. */
  functionBreakpoints(): string[] {
    return [...this.byName.keys()];
  }

  /** Line breakpoints to set, by file. */
  lineBreakpoints(): Map<string, number[]> {
    const files = new Map<string, number[]>();
    for (const l of this.opts.symbols.lines)
      files.set(l.file, [...(files.get(l.file) ?? []), l.line]);
    return files;
  }

  async phaseAt(stop: Stopped): Promise<GoPhase> {
    this.threadId = stop.threadId;
    const frames = await this.frames(stop.threadId);
    const top = frames[0];
    const path = top?.source?.path ?? '';
    const role =
      [...this.byLine].find(([key]) => `/${path}:${top.line}`.endsWith(`/${key}`))?.[1] ??
      this.byFrame.get(shortFunction(top?.name ?? ''))?.role;
    if (!role)
      throw new Error(
        `stopped outside a phase (${stop.reason} in ${top?.name ?? '?'} at ${path}:${top?.line})`,
      );
    const method = this.byFrame.get(shortFunction(top.name))?.method ?? '';
    const vars = await this.locals(top.id);
    const user = frames.find((f) => f.source?.path && this.inModule(f.source.path));
    this.userFrame = user !== undefined;
    // Dequeue and result run in controller-runtime alone: their line is the Reconcile method's.
    const decl = this.opts.reconcilers[0];
    const location = user
      ? { file: user.source!.path!, line: user.line }
      : decl && { file: decl.file, line: decl.line };
    const p = await this.describe(role, method, vars);
    const phase: GoPhase = { ...p, summary: summarize(p), location };
    this.held = phase;
    return phase;
  }

  private async describe(
    role: StopRole,
    method: string,
    vars: Map<string, Variable>,
  ): Promise<Omit<GoPhase, 'summary'>> {
    const v = (name: string) => vars.get(name)?.value ?? '';
    // In reconcileHandler (dequeue, result) the reconcile's UUID and the controller are locals.
    const handler = () => ({
      ...(v('reconcileID') ? { reconcileID: unquote(v('reconcileID')) } : {}),
      ...(controllerNameOf(v('c')) ? { controller: controllerNameOf(v('c')) } : {}),
    });
    switch (role) {
      case 'dequeue':
        return { phase: role, request: parseNamespacedName(v('req')), ...handler() };
      case 'reconcile':
        return { phase: role, request: parseNamespacedName(v('req')) };
      case 'result': {
        const result = parseResult(v('result'), v('err'));
        const request = parseNamespacedName(v('req'));
        return {
          phase: 'result',
          request,
          ...handler(),
          result,
          next: queueDecision(result),
        };
      }
      case 'cacheGet':
      case 'cacheList': {
        // The kind from the type of `out` (no extra round trip), else the reader's GVK.
        const out = vars.get('out');
        let kind = kindOfType(out?.type || out?.value.split(' ')[0] || '');
        if (role === 'cacheList') kind = kind.replace(/List$/, '');
        if (!kind) {
          const gvk = await this.child(vars.get('c'), ['groupVersionKind']);
          kind = /Kind: "([^"]*)"/.exec(gvk?.value ?? '')?.[1] ?? '';
        }
        const key =
          role === 'cacheGet' ? parseNamespacedName(v('key')) : { namespace: '', name: '' };
        const exists = role === 'cacheList' || v('exists') === 'true';
        const call: GoCall = {
          verb: role === 'cacheGet' ? 'get' : 'list',
          kind,
          ...key,
          subresource: '',
          source: 'cache',
          code: exists ? 200 : 404,
          reason: exists ? undefined : 'NotFound',
        };
        const read =
          role === 'cacheGet' && exists ? this.opts.lookup?.(kind, key.namespace, key.name) : null;
        if (read) call.after = read;
        return { phase: 'read', call };
      }
      case 'liveRead':
      case 'write':
      case 'status': {
        const obj = vars.get('obj');
        const key = method === 'Get' ? parseNamespacedName(v('key')) : await this.objectKey(obj);
        const call: GoCall = {
          verb: verbOf(method),
          kind: kindOfType(obj?.type || obj?.value.split(' ')[0] || ''),
          ...key,
          subresource: role === 'status' ? 'status' : '',
          source: 'server',
        };
        await this.stepOut();
        this.answer(call);
        return { phase: role === 'liveRead' ? 'read' : role, call };
      }
    }
  }

  /** Runs the call to its return, so the cluster has answered it (one round trip). */
  private async stepOut(): Promise<void> {
    const stopped = this.channel.nextStop();
    await this.channel.request('stepOut', { threadId: this.threadId });
    this.threadId = (await stopped).threadId;
  }

  /** Fills in the call's code (and objects) from the newest matching request of this process. */
  private answer(call: GoCall): void {
    const events = this.opts.audit.events({ user: this.opts.user, since: this.auditSeq });
    if (events.length > 0) this.auditSeq = events[events.length - 1].seq;
    const verb = call.verb === 'apply' ? 'patch' : call.verb;
    const ev = events.reverse().find(
      (e) =>
        e.verb === verb &&
        e.subresource === call.subresource &&
        e.namespace === call.namespace &&
        // A create names its object in the body, not the URL.
        (!e.name || e.name === call.name),
    );
    if (!ev) return;
    call.code = ev.code;
    call.reason = ev.reason;
    call.message = ev.message;
    call.before = ev.before;
    call.after = ev.after;
    call.resource = ev.resource;
    call.userAgent = ev.userAgent;
    if (ev.end !== undefined) call.latencyMs = ev.end - ev.start;
    if (ev.fault !== undefined) call.fault = ev.fault;
    if (ev.webhookCalls !== undefined) call.webhooks = ev.webhookCalls;
  }

  private async frames(threadId: number): Promise<Frame[]> {
    const body = await this.channel.request<{ stackFrames: Frame[] }>('stackTrace', {
      threadId,
      startFrame: 0,
      // The innermost user frame is at most a few frames below any phase stop (the deepest is
      // the cache reader's: CacheReader.Get ← informerCache.Get ← client.Get ← user code).
      levels: 10,
    });
    return body.stackFrames;
  }

  private async locals(frameId: number): Promise<Map<string, Variable>> {
    const { scopes } = await this.channel.request<{
      scopes: Array<{ name: string; variablesReference: number }>;
    }>('scopes', { frameId });
    const out = new Map<string, Variable>();
    const scope = scopes.find((s) => s.name.startsWith('Locals')) ?? scopes[0];
    if (!scope) return out;
    for (const v of await this.variables(scope.variablesReference))
      if (!out.has(v.name)) out.set(v.name, v);
    return out;
  }

  private async variables(ref: number): Promise<Variable[]> {
    if (ref === 0) return [];
    return (
      await this.channel.request<{ variables: Variable[] }>('variables', {
        variablesReference: ref,
      })
    ).variables;
  }

  /**
   * The object's namespace and name: read from its printed value when Delve shows ObjectMeta
   * inline (no extra round trip), else by walking its fields.
   */
  private async objectKey(obj: Variable | undefined): Promise<{ namespace: string; name: string }> {
    const inline = objectMetaOf(obj?.value ?? '');
    if (inline) return inline;
    const name = await this.child(obj, ['ObjectMeta', 'Name']);
    const ns = await this.child(obj, ['ObjectMeta', 'Namespace']);
    return { namespace: unquote(ns?.value), name: unquote(name?.value) };
  }

  /** Follows a field path through interfaces and pointers (Delve shows each as one child). */
  private async child(v: Variable | undefined, path: string[]): Promise<Variable | undefined> {
    let cur = v;
    for (const name of path) {
      let found: Variable | undefined;
      for (let hops = 0; cur && !found && hops < 4; hops++) {
        const kids = await this.variables(cur.variablesReference);
        found = kids.find((k) => k.name === name);
        if (!found) cur = kids.length === 1 ? kids[0] : undefined;
      }
      cur = found;
    }
    return cur;
  }

  private inModule(path: string): boolean {
    const rel = relative(this.opts.moduleDir, path);
    return !rel.startsWith('..') && !isAbsolute(rel);
  }
}

function unquote(value: string | undefined): string {
  return value ? value.replace(/^"|"$/g, '') : '';
}
