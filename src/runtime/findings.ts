/**
 * Findings: what went wrong in a run, each with its evidence (seed §3.5–3.7). They are computed
 * from the traces, the controller's hot-loop reports and the cluster's Events:
 * - hot-loop: a key reconciled again and again by its own writes (paused by the controller);
 * - quota-conflict: a 403 "exceeded quota" on a write, or FailedCreate events on an object this
 *   controller owns (directly or through a Deployment → ReplicaSet chain), naming quota and numbers;
 * - conflict-storm: repeated 409 Conflicts on one key (stale cache reads or competing writers);
 * - status-update-requeue: the controller's own status writes trigger further reconciles;
 * - status-error-ignored: a failed status write followed by a successful-looking Result;
 * - backoff-at-cap: the per-item backoff reached its maximum delay;
 * - terminal-error, hung-reconcile, result-with-error;
 * - bottleneck: workers busy, queue wait p50/p99, API calls per reconcile, rate-limiter delay.
 */
import type { KubeObject, ObjectKey, TypeRef } from '../cluster/apimachinery/types';
import { isPromise, type ApiServer } from './apiserver';
import type { Controller, HotLoopReport } from './controller';
import { DEFAULT_MAX_DELAY_MS } from './ratelimiter';
import type { Request } from './reconcile';
import { parseRequestKey } from './reconcile';
import { phaseDiff, type ReconcileTrace } from './trace';

export type FindingKind =
  | 'hot-loop'
  | 'quota-conflict'
  | 'conflict-storm'
  | 'status-update-requeue'
  | 'status-error-ignored'
  | 'backoff-at-cap'
  | 'terminal-error'
  | 'hung-reconcile'
  | 'result-with-error'
  | 'bottleneck';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  kind: FindingKind;
  severity: Severity;
  controller: string;
  /** The request it concerns; null for controller-wide findings. */
  request: Request | null;
  message: string;
  evidence: Record<string, unknown>;
}

/** An Event object as the cluster records it (core/v1). */
export interface ClusterEvent {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  involvedObject?: {
    apiVersion?: string;
    kind?: string;
    namespace?: string;
    name?: string;
    uid?: string;
  };
}

/**
 * What findings read of a controller: the runtime's own, or a Go manager's observed from its
 * logs and the cluster's audit record (observedcontroller.ts).
 */
export type AnalyzedController = Pick<
  Controller,
  'name' | 'traces' | 'hotLoops' | 'maxConcurrentReconciles'
>;

/**
 * What findings read of the cluster's objects: an Event's owner chain, walked synchronously — the
 * embedded cluster, or what a real cluster's findings source has fetched (remotefindings.ts).
 */
export type ObjectReader = Pick<ApiServer, 'get'>;

/** How far up owner references an Event's object is followed to the reconciled type. */
export const OWNER_CHAIN_DEPTH = 6;

/**
 * The Events findings read: Warnings of a failed create (the ReplicaSet, Job, StatefulSet… controllers'
 * FailedCreate) or of a quota refusal. Every controller records these as Warnings, so a real
 * cluster's are watched with `type=Warning` (EVENT_FINDINGS_SELECTOR) and the rest is sorted here.
 */
export function isFindingEvent(e: ClusterEvent): boolean {
  return (
    e.type === 'Warning' && (e.reason === 'FailedCreate' || !!e.message?.includes('exceeded quota'))
  );
}

/** The server-side part of isFindingEvent, as a core/v1 Event field selector. */
export const EVENT_FINDINGS_SELECTOR = 'type=Warning';

export interface FindingsInput {
  controller: AnalyzedController;
  forType: TypeRef;
  api: ObjectReader;
  events: ClusterEvent[];
  /** Length of the run in clock ms (for rates and worker utilisation). */
  durationMs: number;
}

export interface QuotaNumbers {
  quota: string;
  requested?: string;
  used?: string;
  limited?: string;
}

/** Parses the apiserver's `exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3`. */
export function parseQuotaMessage(msg: string): QuotaNumbers | undefined {
  const i = msg.indexOf('exceeded quota: ');
  if (i < 0) return undefined;
  // Sections are separated by ", "; the resources inside one section by "," alone.
  const [quota, ...sections] = msg.slice(i + 'exceeded quota: '.length).split(', ');
  const out: QuotaNumbers = { quota: quota.trim() };
  for (const s of sections) {
    const m = /^(requested|used|limited): (.*)$/.exec(s.trim());
    if (m) out[m[1] as 'requested' | 'used' | 'limited'] = m[2];
  }
  return out;
}

export function analyze(input: FindingsInput): Finding[] {
  const c = input.controller;
  const out: Finding[] = [];
  const traces = c.traces;
  out.push(...hotLoops(c.name, c.hotLoops, traces));
  out.push(...quotaFromCalls(c.name, traces));
  out.push(...quotaFromEvents(input));
  out.push(...conflictStorms(c.name, traces));
  out.push(...statusPatterns(c.name, traces));
  out.push(...backoff(c.name, traces));
  out.push(...errorsFound(c.name, traces));
  out.push(bottleneck(input));
  return out;
}

function byKey(traces: ReconcileTrace[]): Map<string, ReconcileTrace[]> {
  const m = new Map<string, ReconcileTrace[]>();
  for (const t of traces) {
    let l = m.get(t.key);
    if (!l) m.set(t.key, (l = []));
    l.push(t);
  }
  return m;
}

function hotLoops(name: string, reports: HotLoopReport[], traces: ReconcileTrace[]): Finding[] {
  const byId = new Map(traces.map((t) => [t.id, t]));
  return reports.map((r) => {
    const ts = r.traceIds.map((id) => byId.get(id)).filter((t): t is ReconcileTrace => !!t);
    const changed = new Map<string, number>();
    const generations: number[] = [];
    for (const t of ts) {
      for (const p of t.phases) {
        const diff = p.phase === 'write' || p.phase === 'status' ? phaseDiff(p) : undefined;
        if (diff && !p.call?.noop) {
          for (const d of diff) {
            if (
              d.path.startsWith('.metadata.resourceVersion') ||
              d.path.startsWith('.metadata.managedFields')
            )
              continue;
            changed.set(d.path, (changed.get(d.path) ?? 0) + 1);
          }
        }
        const g = (p.after?.metadata as { generation?: number } | undefined)?.generation;
        if (p.phase === 'write' && g !== undefined) generations.push(g);
      }
    }
    // Paths written on most passes (a one-off change is not what keeps the loop going).
    const paths = [...changed.entries()]
      .filter(([, n]) => n >= Math.max(2, ts.length / 2))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([p]) => p);
    // Another writer changing the same objects between our passes: a fight, not a solo loop.
    const others = new Set<string>();
    for (const t of ts) {
      for (const tr of t.triggers) {
        if (tr.kind === 'event' && !tr.selfTriggered && tr.cause) {
          const o = tr.cause.object;
          others.add(`${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`);
        }
      }
    }
    const specWrite = paths.some((p) => p.startsWith('.spec'));
    const why = others.size
      ? `each pass rewrites ${paths.join(', ') || 'the object'} and another writer changes ${[...others].join(', ')} back — a fight over fields this controller does not own (an Update of a locally built object overwrites them; Get the live object and change only your fields, or Patch)`
      : specWrite
        ? 'it writes .spec back on every pass (each write bumps the generation and triggers the next reconcile)'
        : paths.some((p) => p.startsWith('.status'))
          ? 'its status changes on every pass (status churn: a timestamp or counter in status?)'
          : 'each of its writes triggers the next reconcile';
    return {
      kind: 'hot-loop',
      severity: 'error',
      controller: name,
      request: parseRequestKey(r.key),
      message:
        r.reason === 'rate'
          ? `${r.key} was reconciled ${r.reconciles} times within one second of controller time${paths.length ? `; each pass wrote ${paths.join(', ')}` : ''}; ${r.suspended ? 'processing of the key was paused' : 'it keeps spinning'}.`
          : `${r.key} was reconciled ${r.reconciles} times in a row, each time triggered by its own write: ${why}. ${r.suspended ? 'Processing of the key was paused.' : ''}`.trim(),
      evidence: {
        at: r.at,
        reconciles: r.reconciles,
        reason: r.reason,
        traceIds: r.traceIds,
        changedPaths: paths,
        ...(others.size ? { otherWriters: [...others] } : {}),
        ...(generations.length
          ? { generations: [generations[0], generations[generations.length - 1]] }
          : {}),
        suspended: r.suspended,
      },
    };
  });
}

function quotaFromCalls(name: string, traces: ReconcileTrace[]): Finding[] {
  const out = new Map<string, Finding>();
  for (const t of traces) {
    for (const call of t.calls) {
      if (call.code !== 403 || !call.message?.includes('exceeded quota')) continue;
      const q = parseQuotaMessage(call.message);
      const k = `${t.key}|${q?.quota ?? ''}`;
      const f = out.get(k);
      if (f) {
        (f.evidence.traceIds as number[]).push(t.id);
        f.evidence.count = (f.evidence.count as number) + 1;
        continue;
      }
      out.set(k, {
        kind: 'quota-conflict',
        severity: 'error',
        controller: name,
        request: t.request,
        message: `${call.verb} of ${call.kind} ${call.namespace}/${call.name} was refused by ResourceQuota ${q?.quota ?? '?'}: ${call.message}`,
        evidence: {
          source: 'api-call',
          call: {
            verb: call.verb,
            resource: call.resource,
            namespace: call.namespace,
            name: call.name,
            code: call.code,
          },
          ...q,
          count: 1,
          traceIds: [t.id],
          firstAt: call.at,
        },
      });
    }
  }
  return [...out.values()];
}

/** Walks controller owner references up from an object to an object of the reconciled type. */
function ownerChain(
  api: ObjectReader,
  forType: TypeRef,
  start: ClusterEvent['involvedObject'],
  writtenBy: Map<string, Request>,
): Array<{ kind: string; namespace?: string; name: string }> | undefined {
  if (!start?.kind || !start.name || !start.apiVersion) return undefined;
  const chain: Array<{ kind: string; namespace?: string; name: string }> = [
    { kind: start.kind, namespace: start.namespace, name: start.name },
  ];
  let type: TypeRef = { apiVersion: start.apiVersion, kind: start.kind };
  let key: ObjectKey = { namespace: start.namespace, name: start.name };
  for (let depth = 0; depth < OWNER_CHAIN_DEPTH; depth++) {
    if (type.kind === forType.kind && group(type.apiVersion) === group(forType.apiVersion))
      return chain;
    let obj: KubeObject;
    try {
      const got = api.get(type, key);
      // Findings are computed synchronously; a remote server's answer would come too late.
      if (isPromise(got)) {
        got.catch(() => {});
        return undefined;
      }
      obj = got;
    } catch {
      return undefined;
    }
    const ref =
      (obj.metadata.ownerReferences ?? []).find((r) => r.controller) ??
      obj.metadata.ownerReferences?.[0];
    if (!ref) {
      // No owner reference (never set, or overwritten by an Update of a locally built object):
      // the controller still made it, if one of its reconciles wrote it.
      const by = writtenBy.get(`${type.kind} ${key.namespace ?? ''}/${key.name}`);
      if (!by) return undefined;
      chain.push({ kind: forType.kind, namespace: by.namespace, name: by.name });
      return chain;
    }
    type = { apiVersion: ref.apiVersion, kind: ref.kind };
    key = { namespace: obj.metadata.namespace, name: ref.name };
    chain.push({ kind: ref.kind, namespace: obj.metadata.namespace, name: ref.name });
  }
  return undefined;
}

function group(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** "Kind namespace/name" of each object the controller created or updated → the request it was reconciling. */
function writtenObjects(traces: ReconcileTrace[]): Map<string, Request> {
  const m = new Map<string, Request>();
  for (const t of traces)
    for (const c of t.calls)
      if ((c.verb === 'create' || c.verb === 'update' || c.verb === 'patch') && c.code < 300)
        m.set(`${c.kind} ${c.namespace}/${c.name}`, t.request);
  return m;
}

function quotaFromEvents(input: FindingsInput): Finding[] {
  const out = new Map<string, Finding>();
  const writtenBy = writtenObjects(input.controller.traces);
  for (const e of input.events) {
    if (!isFindingEvent(e)) continue;
    const quota = e.message?.includes('exceeded quota');
    const chain = ownerChain(input.api, input.forType, e.involvedObject, writtenBy);
    if (!chain || chain.length < 2) continue;
    const root = chain[chain.length - 1];
    const req: Request = { namespace: root.namespace ?? '', name: root.name };
    const q = e.message ? parseQuotaMessage(e.message) : undefined;
    const k = `${req.namespace}/${req.name}|${q?.quota ?? e.reason}`;
    const path = chain
      .map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`)
      .join(' ← owned by ');
    const f = out.get(k);
    if (f) {
      f.evidence.count = (f.evidence.count as number) + (e.count ?? 1);
      continue;
    }
    out.set(k, {
      kind: 'quota-conflict',
      severity: 'error',
      controller: input.controller.name,
      request: req,
      message: quota
        ? `${path}: ${e.reason} — ${e.message}. The reconcile itself got no error (the quota is checked when the ReplicaSet creates pods, not when the ${chain[1]?.kind ?? 'child'} is written), so ${root.kind} ${req.namespace}/${req.name} can report success while its pods are missing.`
        : `${path}: ${e.reason} — ${e.message}`,
      evidence: {
        source: 'event',
        event: {
          type: e.type,
          reason: e.reason,
          message: e.message,
          involvedObject: e.involvedObject,
        },
        ownerChain: chain,
        ...q,
        count: e.count ?? 1,
      },
    });
  }
  return [...out.values()];
}

function conflictStorms(name: string, traces: ReconcileTrace[]): Finding[] {
  const out: Finding[] = [];
  for (const [key, ts] of byKey(traces)) {
    const conflicts = ts.flatMap((t) =>
      t.calls.filter((c) => c.code === 409 && c.reason === 'Conflict').map((c) => ({ t, c })),
    );
    if (conflicts.length < 3) continue;
    const first = conflicts[0].c.at;
    const last = conflicts[conflicts.length - 1].c.at;
    out.push({
      kind: 'conflict-storm',
      severity: 'warning',
      controller: name,
      request: parseRequestKey(key),
      message: `${key}: ${conflicts.length} update conflicts (409) in ${((last - first) / 1000).toFixed(1)} s — writes are based on stale reads (the cache lags the server, or another writer competes). Re-read and retry (retry.RetryOnConflict), or patch instead of update.`,
      evidence: {
        conflicts: conflicts.length,
        reconciles: ts.length,
        firstAt: first,
        lastAt: last,
        objects: [
          ...new Set(
            conflicts.map(
              ({ c }) => `${c.resource}/${c.name}${c.subresource ? `/${c.subresource}` : ''}`,
            ),
          ),
        ],
        traceIds: [...new Set(conflicts.map(({ t }) => t.id))].slice(0, 20),
      },
    });
  }
  return out;
}

function statusPatterns(name: string, traces: ReconcileTrace[]): Finding[] {
  const out: Finding[] = [];
  const byId = new Map(traces.map((t) => [t.id, t]));
  for (const [key, ts] of byKey(traces)) {
    // Reconciles triggered by this key's own status write.
    const selfByStatus = ts.filter((t) =>
      t.triggers.some((tr) => {
        if (tr.kind !== 'event' || !tr.selfTriggered || tr.fromReconcile === undefined)
          return false;
        const src = byId.get(tr.fromReconcile);
        return !!src?.calls.some(
          (c) =>
            c.subresource === 'status' &&
            c.code < 300 &&
            !c.noop &&
            c.resourceVersion === tr.cause?.object.resourceVersion,
        );
      }),
    );
    const statusWrites = ts.flatMap((t) => t.calls.filter((c) => c.subresource === 'status'));
    const noops = statusWrites.filter((c) => c.noop).length;
    const multi = ts.filter((t) => t.calls.filter((c) => c.subresource === 'status').length > 1);
    if (selfByStatus.length > 0) {
      out.push({
        kind: 'status-update-requeue',
        severity: 'warning',
        controller: name,
        request: parseRequestKey(key),
        message: `${key}: ${selfByStatus.length} of ${ts.length} reconciles were triggered by the controller's own status update (a status write is a watch event on the reconciled object). ${noops} of ${statusWrites.length} status writes changed nothing. Filter with GenerationChangedPredicate, or skip the write when status is unchanged.`,
        evidence: {
          reconciles: ts.length,
          triggeredByOwnStatusWrite: selfByStatus.length,
          statusWrites: statusWrites.length,
          noopStatusWrites: noops,
          ...(multi.length
            ? { reconcilesWithSeveralStatusWrites: multi.map((t) => t.id).slice(0, 20) }
            : {}),
          traceIds: selfByStatus.map((t) => t.id).slice(0, 20),
        },
      });
    }
    const ignored = ts.filter(
      (t) => !t.error && t.calls.some((c) => c.subresource === 'status' && c.code >= 400),
    );
    if (ignored.length) {
      const c = ignored[0].calls.find((x) => x.subresource === 'status' && x.code >= 400)!;
      out.push({
        kind: 'status-error-ignored',
        severity: 'warning',
        controller: name,
        request: parseRequestKey(key),
        message: `${key}: a status write failed (${c.code} ${c.reason ?? ''}) but the reconcile returned without an error, ${ignored.length} time(s); the next reconcile will decide on a stale status.`,
        evidence: {
          traceIds: ignored.map((t) => t.id).slice(0, 20),
          code: c.code,
          reason: c.reason,
          message: c.message,
        },
      });
    }
  }
  return out;
}

function backoff(name: string, traces: ReconcileTrace[]): Finding[] {
  const out: Finding[] = [];
  for (const [key, ts] of byKey(traces)) {
    const capped = ts.filter(
      (t) => t.next?.action === 'rateLimited' && (t.next.delayMs ?? 0) >= DEFAULT_MAX_DELAY_MS,
    );
    if (!capped.length) continue;
    const last = ts[ts.length - 1];
    out.push({
      kind: 'backoff-at-cap',
      severity: 'warning',
      controller: name,
      request: parseRequestKey(key),
      message: `${key} keeps failing: its backoff reached the ${DEFAULT_MAX_DELAY_MS / 1000} s cap after ${capped[0].next?.reason?.attempt ?? '?'} failures; it is now retried only every ${Math.round((capped[0].next?.delayMs ?? 0) / 1000)} s. Last error: ${last.error?.message ?? 'none'}`,
      evidence: {
        firstAt: capped[0].end,
        attempts: capped[0].next?.reason?.attempt,
        delayMs: capped[0].next?.delayMs,
        lastError: last.error?.message ?? null,
        traceIds: capped.map((t) => t.id).slice(0, 20),
      },
    });
  }
  return out;
}

function errorsFound(name: string, traces: ReconcileTrace[]): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const t of traces) {
    if (t.error?.name === 'ReconcileHangError' && !seen.has(`hang|${t.key}`)) {
      seen.add(`hang|${t.key}`);
      out.push({
        kind: 'hung-reconcile',
        severity: 'error',
        controller: name,
        request: t.request,
        message: `${t.key}: ${t.error.message}`,
        evidence: { traceId: t.id, at: t.start },
      });
    }
    if (t.outcome === 'terminal' && !seen.has(`term|${t.key}`)) {
      seen.add(`term|${t.key}`);
      out.push({
        kind: 'terminal-error',
        severity: 'info',
        controller: name,
        request: t.request,
        message: `${t.key}: terminal error, not retried: ${t.error?.message}${t.error?.location ? ` (at ${t.error.location})` : ''}`,
        evidence: { traceId: t.id, at: t.start },
      });
    }
    if (t.warnings.length && !seen.has(`rwe|${t.key}`)) {
      seen.add(`rwe|${t.key}`);
      out.push({
        kind: 'result-with-error',
        severity: 'warning',
        controller: name,
        request: t.request,
        message: `${t.key}: the reconciler returned a Result together with an error; the Result (${resultWords(t.result)}) was ignored and the request rate-limited instead.`,
        evidence: { traceId: t.id, at: t.start },
      });
    }
  }
  return out;
}

/** A Result as its fields read ("requeueAfter: 5000 ms"), not as JSON. */
function resultWords(r: ReconcileTrace['result']): string {
  const parts = [
    ...(r?.requeue ? ['requeue: true'] : []),
    ...(r?.requeueAfter ? [`requeueAfter: ${r.requeueAfter} ms`] : []),
  ];
  return parts.join(', ') || 'empty';
}

function pct(values: number[], p: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

function bottleneck(input: FindingsInput): Finding {
  const c = input.controller;
  const ts = c.traces;
  const waits = ts.map((t) => (t.queuedAt !== undefined ? t.start - t.queuedAt : 0));
  const busyMs = ts.reduce((s, t) => s + ((t.end ?? t.start) - t.start), 0);
  const calls = ts.map((t) => t.calls.length);
  const reads = ts.reduce((s, t) => s + t.calls.filter((x) => x.source === 'cache').length, 0);
  const writes = ts.reduce((s, t) => s + t.calls.filter((x) => x.source === 'server').length, 0);
  const rlDelays = ts
    .filter((t) => t.next?.action === 'rateLimited')
    .map((t) => t.next!.delayMs ?? 0);
  const perKey = byKey(ts);
  const busiest = [...perKey.entries()].sort((a, b) => b[1].length - a[1].length)[0];
  const duration = Math.max(1, input.durationMs);
  const evidence = {
    reconciles: ts.length,
    keys: perKey.size,
    workers: c.maxConcurrentReconciles,
    workerBusyPercent: Math.round((busyMs / (duration * c.maxConcurrentReconciles)) * 10000) / 100,
    queueWaitMsP50: pct(waits, 0.5),
    queueWaitMsP99: pct(waits, 0.99),
    apiCallsPerReconcile: ts.length ? Math.round(((reads + writes) / ts.length) * 100) / 100 : 0,
    maxApiCallsInOneReconcile: calls.length ? Math.max(...calls) : 0,
    cacheReads: reads,
    serverWrites: writes,
    rateLimitedRequeues: rlDelays.length,
    rateLimiterDelayMsTotal: rlDelays.reduce((s, d) => s + d, 0),
    rateLimiterDelayMsMax: rlDelays.length ? Math.max(...rlDelays) : 0,
    busiestKey: busiest ? { key: busiest[0], reconciles: busiest[1].length } : null,
  };
  return {
    kind: 'bottleneck',
    severity: 'info',
    controller: c.name,
    request: null,
    message: `${ts.length} reconciles of ${perKey.size} keys by ${c.maxConcurrentReconciles} worker(s); queue wait p50 ${evidence.queueWaitMsP50} ms, p99 ${evidence.queueWaitMsP99} ms; ${evidence.apiCallsPerReconcile} API calls per reconcile (${reads} cache reads, ${writes} writes); ${rlDelays.length} rate-limited requeues (max delay ${evidence.rateLimiterDelayMsMax} ms)${busiest ? `; busiest key ${busiest[0]} (${busiest[1].length} reconciles)` : ''}.`,
    evidence,
  };
}
