/**
 * Fault injection: rules read from a faults file (`serve --faults`, `simulate --faults`, the
 * workspace's `.reconcile-studio/faults.yaml`) that make chosen requests fail with the
 * apiserver's own Status for the code, answer late, end a watch, expire a resourceVersion (410)
 * or deliver watch events late. The same rules apply to requests over HTTP (server.ts) and to the
 * runtime's in-process calls (runtime/faultyapiserver.ts), so an operator meets the same bad day
 * either way. Draws for `probability` come from a seeded generator: same seed, same requests,
 * same faults.
 */
import { readFileSync } from 'node:fs';
import YAML, { isMap, isScalar, isSeq, LineCounter, type Node as YamlNode } from 'yaml';
import type { AuditVerb } from './endpoints/audit';
import {
  OBJECT_MODIFIED,
  StatusError,
  newConflict,
  newForbidden,
  newGone,
  newInternal,
  newNotFound,
  newNotFoundPath,
  newServiceUnavailable,
  newTimeoutError,
  newTooManyRequests,
  type GroupResource,
} from './apimachinery/errors';
import { newExceededQuota, objectCountName } from './admission/quota';
import type { KubeObject, WatchEvent } from './apimachinery/types';
import type { Clock, TimerHandle } from '../util/clock';
import { seededRandom } from '../util/random';

/**
 * The ResourceQuota the chaos report's and the debugger's quota refusals name: no quota of the
 * workspace's, so the message says plainly that the refusal was injected.
 */
export const INJECTED_QUOTA = 'injected-quota';

export const FAULT_CODES = [403, 404, 409, 429, 500, 503, 504] as const;
export type FaultCode = (typeof FAULT_CODES)[number];

const VERBS: readonly AuditVerb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
];

/** Every field of `match` is optional: an absent field matches anything. */
export interface FaultMatch {
  verb?: AuditVerb;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  userAgent?: string;
}

export interface FaultRule {
  /** The label shown in traces, the audit log and reports; `faults[i]` when the file gives none. */
  name: string;
  match: FaultMatch;
  times?: number;
  after?: number;
  probability?: number;
  /**
   * The Status to answer with. A 403 is the RBAC authorizer's denial unless `quota` names a
   * ResourceQuota: then it is the quota admission plugin's `exceeded quota` refusal, with
   * `limited` (default 0) the quota's hard limit, already used up.
   */
  error?: { code: FaultCode; quota?: string; limited?: number };
  retryAfterSeconds?: number;
  latencyMs?: number;
  closeWatch?: boolean;
  gone?: boolean;
  cacheLagMs?: number;
  /** Where the rule is written, for messages. */
  line: number;
}

/** A faults file that cannot be used, with where. */
export class FaultsFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'FaultsFileError';
  }
}

/** What the dispatcher knows about a request when it decides. */
export interface FaultRequest {
  verb: AuditVerb;
  /** API group of the resource ('' for the core group), for the Status details. */
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  userAgent: string;
  /** The authenticated user, for Forbidden's message. */
  user: string;
  /** resourceVersion asked for by a list or watch ('' when none). */
  resourceVersion: string;
  /**
   * A create's object name, from its body (its URL names none, so `name` is ''): admission sees
   * it, and a quota refusal names it.
   */
  objectName?: string;
}

/** What a fault does to one request. Errors carry the fault's name (`faultOf`). */
export interface FaultEffect {
  fault: string;
  latencyMs: number;
  error?: StatusError;
  closeWatch: boolean;
  /** For a list: answered with this 410; for a watch: sent as its ERROR event. */
  gone?: StatusError;
  cacheLagMs: number;
}

const KEYS = [
  'name',
  'match',
  'times',
  'after',
  'probability',
  'error',
  'retryAfterSeconds',
  'latencyMs',
  'closeWatch',
  'gone',
  'cacheLagMs',
];
const MATCH_KEYS = ['verb', 'resource', 'subresource', 'namespace', 'name', 'userAgent'];

/** Parses and validates a faults file; every problem is a FaultsFileError naming file:line. */
export function parseFaults(text: string, file: string): FaultRule[] {
  const lc = new LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lc, uniqueKeys: true });
  const lineAt = (n: YamlNode | null | undefined): number =>
    n?.range ? lc.linePos(n.range[0]).line : 1;
  const fail = (n: YamlNode | null | undefined, msg: string): never => {
    throw new FaultsFileError(file, lineAt(n), msg);
  };
  if (doc.errors.length) {
    const e = doc.errors[0];
    throw new FaultsFileError(file, e.linePos?.[0]?.line ?? 1, e.message.split('\n')[0]);
  }
  const root = doc.contents;
  if (root === null) return [];
  if (!isMap(root)) return fail(root, 'a faults file is a mapping with a "faults" list');
  let list: YamlNode | null = null;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'faults')
      fail(pair.key as YamlNode, `unknown field "${key}" (the file has only "faults")`);
    list = pair.value as YamlNode | null;
  }
  if (list === null || (isScalar(list) && list.value === null)) return [];
  if (!isSeq(list)) return fail(list, '"faults" must be a list of faults');
  return list.items.map((item, i) => parseRule(item as YamlNode, i, lineAt, fail));
}

function parseRule(
  node: YamlNode,
  index: number,
  lineAt: (n: YamlNode | null | undefined) => number,
  fail: (n: YamlNode | null | undefined, msg: string) => never,
): FaultRule {
  const at = `faults[${index}]`;
  if (!isMap(node)) return fail(node, `${at}: a fault must be a mapping`);
  const rule: FaultRule = { name: at, match: {}, line: lineAt(node) };
  const nodes: Record<string, YamlNode> = {};
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as YamlNode;
    nodes[key] = value ?? (pair.key as YamlNode);
    const where = `${at}.${key}`;
    const scalar = (): unknown => (isScalar(value) ? value.value : undefined);
    const num = (min: number, max: number, integer: boolean): number => {
      const v = scalar();
      if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
        fail(value, `${where} must be ${integer ? 'a whole number' : 'a number'}`);
      const n = v as number;
      if (n < min || n > max)
        fail(value, `${where} must be between ${min} and ${max === Infinity ? 'any' : max}`);
      return n;
    };
    const bool = (): boolean => {
      const v = scalar();
      if (typeof v !== 'boolean') fail(value, `${where} must be true or false`);
      return v as boolean;
    };
    switch (key) {
      case 'name': {
        const v = scalar();
        if (typeof v !== 'string' || v === '') fail(value, `${where} must be a non-empty string`);
        rule.name = v as string;
        break;
      }
      case 'match':
        rule.match = parseMatch(value, where, fail);
        break;
      case 'times':
        rule.times = num(1, Infinity, true);
        break;
      case 'after':
        rule.after = num(0, Infinity, true);
        break;
      case 'probability':
        rule.probability = num(0, 1, false);
        break;
      case 'error':
        rule.error = parseError(value, where, fail);
        break;
      case 'retryAfterSeconds':
        rule.retryAfterSeconds = num(1, Infinity, true);
        break;
      case 'latencyMs':
        rule.latencyMs = num(0, Infinity, false);
        break;
      case 'closeWatch':
        rule.closeWatch = bool();
        break;
      case 'gone':
        rule.gone = bool();
        break;
      case 'cacheLagMs':
        rule.cacheLagMs = num(0, Infinity, false);
        break;
      default:
        fail(pair.key as YamlNode, `unknown field "${where}" (known: ${KEYS.join(', ')})`);
    }
  }
  // Rules that could never do anything are refused rather than silently kept.
  const code = rule.error?.code;
  if (rule.retryAfterSeconds !== undefined && code !== 429 && code !== 503)
    fail(
      nodes.retryAfterSeconds,
      `${at}.retryAfterSeconds applies only to error codes 429 and 503`,
    );
  const watchOnly = (['closeWatch', 'cacheLagMs'] as const).filter((k) => rule[k]);
  if (rule.gone) {
    if (rule.match.verb && rule.match.verb !== 'list' && rule.match.verb !== 'watch')
      fail(nodes.gone, `${at}.gone applies only to list and watch, not ${rule.match.verb}`);
  }
  for (const k of watchOnly)
    if (rule.match.verb && rule.match.verb !== 'watch')
      fail(nodes[k], `${at}.${k} applies only to watch, not ${rule.match.verb}`);
  const effects = [code, rule.latencyMs, rule.closeWatch, rule.gone, rule.cacheLagMs].filter(
    (e) => e !== undefined && e !== false && e !== 0,
  );
  if (!effects.length)
    fail(node, `${at} does nothing: give it error, latencyMs, closeWatch, gone or cacheLagMs`);
  if (code !== undefined && (rule.gone || rule.closeWatch))
    fail(node, `${at}: error cannot be combined with gone or closeWatch`);
  return rule;
}

/** `error: {code: 409}`, or `{code: 403, quota: compute, limited: 2}` for a quota's refusal. */
function parseError(
  value: YamlNode,
  where: string,
  fail: (n: YamlNode | null | undefined, msg: string) => never,
): NonNullable<FaultRule['error']> {
  if (!isMap(value)) return fail(value, `${where} must be a mapping like {code: 409}`);
  const fields: Record<string, { node: YamlNode; value: unknown }> = {};
  for (const p of value.items) {
    const k = isScalar(p.key) ? String(p.key.value) : '';
    if (!ERROR_KEYS.includes(k))
      fail(p.key as YamlNode, `unknown field "${where}.${k}" (known: ${ERROR_KEYS.join(', ')})`);
    const node = (p.value as YamlNode | null) ?? (p.key as YamlNode);
    fields[k] = { node, value: isScalar(p.value) ? p.value.value : undefined };
  }
  if (!fields.code) return fail(value, `${where}.code is required`);
  const c = fields.code.value;
  if (!FAULT_CODES.includes(c as FaultCode))
    fail(
      fields.code.node,
      `${where}.code must be one of ${FAULT_CODES.join(', ')}, got ${JSON.stringify(c ?? null)}`,
    );
  const error: NonNullable<FaultRule['error']> = { code: c as FaultCode };
  if (fields.quota) {
    const q = fields.quota.value;
    if (typeof q !== 'string' || q === '')
      fail(fields.quota.node, `${where}.quota must be the name of a ResourceQuota`);
    if (error.code !== 403)
      fail(fields.quota.node, `${where}.quota applies only to code 403 (a quota refuses with 403)`);
    error.quota = q as string;
  }
  if (fields.limited) {
    const l = fields.limited.value;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0)
      fail(fields.limited.node, `${where}.limited must be a whole number from 0`);
    if (error.quota === undefined)
      fail(fields.limited.node, `${where}.limited applies only with ${where}.quota`);
    error.limited = l as number;
  }
  return error;
}

const ERROR_KEYS = ['code', 'quota', 'limited'];

function parseMatch(
  value: YamlNode,
  where: string,
  fail: (n: YamlNode | null | undefined, msg: string) => never,
): FaultMatch {
  if (isScalar(value) && value.value === null) return {};
  if (!isMap(value)) return fail(value, `${where} must be a mapping`);
  const m: FaultMatch = {};
  for (const p of value.items) {
    const k = isScalar(p.key) ? String(p.key.value) : '';
    if (!MATCH_KEYS.includes(k))
      fail(p.key as YamlNode, `unknown field "${where}.${k}" (known: ${MATCH_KEYS.join(', ')})`);
    const v = isScalar(p.value) ? p.value.value : undefined;
    if (typeof v !== 'string')
      fail((p.value as YamlNode) ?? (p.key as YamlNode), `${where}.${k} must be a string`);
    if (k === 'verb' && !VERBS.includes(v as AuditVerb))
      fail(
        p.value as YamlNode,
        `${where}.verb must be one of ${VERBS.join(', ')}, got "${String(v)}"`,
      );
    (m as Record<string, string>)[k] = v as string;
  }
  return m;
}

/**
 * The user agent matches as kube's field managers are derived from it: the whole string, or its
 * first product token (`manager` matches `manager/v0.0.0 (linux/amd64) kubernetes/$Format`).
 */
function userAgentMatches(want: string, ua: string): boolean {
  return ua === want || ua.split('/')[0].trim() === want;
}

function matches(rule: FaultRule, r: FaultRequest): boolean {
  const m = rule.match;
  if (m.verb !== undefined && m.verb !== r.verb) return false;
  if (m.resource !== undefined && m.resource !== r.resource) return false;
  if (m.subresource !== undefined && m.subresource !== r.subresource) return false;
  if (m.namespace !== undefined && m.namespace !== r.namespace) return false;
  if (m.name !== undefined && m.name !== r.name) return false;
  if (m.userAgent !== undefined && !userAgentMatches(m.userAgent, r.userAgent)) return false;
  // Watch-shaped effects concern watches only; `gone` a list or watch from a resourceVersion the
  // client already had (a list with none, or "0", reads the latest and cannot be too old).
  if ((rule.closeWatch || rule.cacheLagMs) && r.verb !== 'watch') return false;
  if (rule.gone) {
    if (r.verb !== 'list' && r.verb !== 'watch') return false;
    if (r.resourceVersion === '' || (r.verb === 'list' && r.resourceVersion === '0')) return false;
  }
  return true;
}

/** Errors and delayed answers a fault produced → the fault's name. */
const injected = new WeakMap<object, string>();

/** The name of the fault that produced `v` (an error, or a delayed answer's promise), if any. */
export function faultOf(v: unknown): string | undefined {
  return typeof v === 'object' && v !== null ? injected.get(v) : undefined;
}

/** Marks `v` as produced by `fault`. */
export function markInjected<T extends object>(v: T, fault: string): T {
  injected.set(v, fault);
  return v;
}

/**
 * Decides, request by request, which fault (if any) applies. The first rule that fires decides;
 * the requests a rule matched are counted whether or not it fired (`after`, `times`).
 */
export class FaultInjector {
  private rules: FaultRule[];
  private matched: number[];
  private hits: number[];
  private random: () => number;

  constructor(
    rules: FaultRule[],
    private readonly seed = 1,
  ) {
    this.rules = rules;
    this.matched = rules.map(() => 0);
    this.hits = rules.map(() => 0);
    this.random = seededRandom(seed);
  }

  /** Replaces the rules (a reloaded file); counters and the generator start again. */
  reload(rules: FaultRule[]): void {
    this.rules = rules;
    this.matched = rules.map(() => 0);
    this.hits = rules.map(() => 0);
    this.random = seededRandom(this.seed);
  }

  get size(): number {
    return this.rules.length;
  }

  /**
   * Adds a rule ahead of the others (the debugger's "Fail the next call with…"): it decides
   * before the file's rules, whose counters are kept. A reload of the file drops it.
   */
  inject(rule: FaultRule): void {
    this.rules = [rule, ...this.rules];
    this.matched = [0, ...this.matched];
    this.hits = [0, ...this.hits];
  }

  decide(r: FaultRequest): FaultEffect | undefined {
    for (let i = 0; i < this.rules.length; i++) {
      const rule = this.rules[i];
      if (!matches(rule, r)) continue;
      const n = ++this.matched[i];
      if (n <= (rule.after ?? 0)) continue;
      if (rule.times !== undefined && this.hits[i] >= rule.times) continue;
      if (rule.probability !== undefined && this.random() >= rule.probability) continue;
      this.hits[i]++;
      return effectOf(rule, r);
    }
    return undefined;
  }
}

function effectOf(rule: FaultRule, r: FaultRequest): FaultEffect {
  const tag = (e: StatusError): StatusError => markInjected(e, rule.name);
  return {
    fault: rule.name,
    latencyMs: rule.latencyMs ?? 0,
    closeWatch: rule.closeWatch === true,
    cacheLagMs: rule.cacheLagMs ?? 0,
    ...(rule.error
      ? {
          error: tag(
            rule.error.quota !== undefined
              ? exceededQuotaFor(r, rule.error.quota, rule.error.limited ?? 0)
              : statusFor(rule.error.code, r, rule.retryAfterSeconds),
          ),
        }
      : {}),
    ...(rule.gone ? { gone: tag(goneFor(r)) } : {}),
  };
}

/**
 * The 410 the watch cache answers for a resourceVersion it no longer has: `too old resource
 * version: asked (oldest kept)`; the oldest kept is made the next one.
 */
function goneFor(r: FaultRequest): StatusError {
  const asked = Number(r.resourceVersion);
  const oldest = Number.isInteger(asked) ? String(asked + 1) : r.resourceVersion;
  return newGone(`too old resource version: ${r.resourceVersion} (${oldest})`);
}

/** The Status kube-apiserver answers with for `code`, in its own words. */
export function statusFor(
  code: FaultCode,
  r: FaultRequest,
  retryAfterSeconds?: number,
): StatusError {
  const gr: GroupResource = { group: r.group, resource: r.resource };
  switch (code) {
    case 403:
      // The RBAC authorizer's denial (rbac.go: `User %q cannot %s resource %q in API group %q …`).
      return newForbidden(
        gr,
        r.name,
        `User "${r.user}" cannot ${r.verb} resource "${r.resource}${r.subresource ? `/${r.subresource}` : ''}" in API group "${r.group}" ${r.namespace ? `in the namespace "${r.namespace}"` : 'at the cluster scope'}`,
      );
    case 404:
      return r.name ? newNotFound(gr, r.name) : newNotFoundPath();
    case 409:
      return newConflict(gr, r.name, OBJECT_MODIFIED);
    case 429:
      // errors.NewTooManyRequests; the response carries Retry-After from the details.
      return newTooManyRequests(
        'Too many requests, please try again later.',
        retryAfterSeconds ?? 1,
      );
    case 500:
      return newInternal('injected fault');
    case 503:
      return newServiceUnavailable(
        'the server is currently unable to handle the request',
        retryAfterSeconds,
      );
    case 504:
      // The apiserver's request time-out filter (errors.NewTimeoutError).
      return newTimeoutError(
        'request did not complete within requested timeout - context deadline exceeded',
      );
  }
}

/**
 * A quota that is used up, as the ResourceQuota admission plugin refuses the request: one more
 * object of the resource is asked for, and `limited` are already there.
 */
export function exceededQuotaFor(r: FaultRequest, quota: string, limited: number): StatusError {
  const key = objectCountName(r.group, r.resource);
  return newExceededQuota(
    { group: r.group, resource: r.resource },
    r.name || (r.objectName ?? ''),
    quota,
    `${key}=1`,
    `${key}=${limited}`,
    `${key}=${limited}`,
  );
}

/** The `Retry-After` header kube-apiserver sets from a Status's details (responsewriters). */
export function retryAfterOf(err: StatusError): number | undefined {
  const s = err.status.details?.retryAfterSeconds;
  return typeof s === 'number' && s > 0 ? s : undefined;
}

/** What the HTTP hook needs of a response: set a header before the Status is written. */
interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * Over HTTP (server.ts): records the fault in the request's audit event, waits out its latency on
 * the real clock, then throws its error — with `Retry-After` as kube-apiserver's response writer
 * sets it from `details.retryAfterSeconds` — or, for a list, its 410. Watch effects are left to
 * the watch (`gone` as an ERROR event, `closeWatch`, `cacheLagMs`).
 */
export async function injectHttpFault(
  effect: FaultEffect,
  verb: AuditVerb,
  res: HeaderSink,
  record: { injected(fault: string): void } | undefined,
): Promise<void> {
  record?.injected(effect.fault);
  if (effect.latencyMs > 0) await new Promise((r) => setTimeout(r, effect.latencyMs));
  const err = effect.error ?? (verb === 'list' ? effect.gone : undefined);
  if (!err) return;
  const retryAfter = retryAfterOf(err);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  throw err;
}

/**
 * A watch under a fault, over HTTP and in-process alike: `gone` answers with the 410 as the
 * watch's only event (as the watch cache answers a resourceVersion it no longer has), then ends;
 * `cacheLagMs` delivers every event that much later, in order (a stale informer cache);
 * `closeWatch` ends the stream once its first batch of events is out. `start` opens the real
 * watch with the sink to deliver to.
 */
export function watchUnderFault(
  fault: FaultEffect | undefined,
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  send: (ev: WatchEvent) => void,
  end: () => void,
  start: (deliver: (ev: WatchEvent) => void) => { stop(): void },
): { stop(): void } {
  if (fault?.gone) {
    // From a microtask, as a watch delivers: after the caller has answered with its headers.
    const gone = fault.gone;
    queueMicrotask(() => {
      send({ type: 'ERROR', object: gone.status as unknown as KubeObject });
      end();
    });
    return { stop: () => undefined };
  }
  const lag = fault?.cacheLagMs ?? 0;
  const pending = new Set<TimerHandle>();
  const deliver =
    lag > 0
      ? (ev: WatchEvent) => {
          const h = clock.setTimeout(() => {
            pending.delete(h);
            send(ev);
          }, lag);
          pending.add(h);
        }
      : send;
  const w = start(deliver);
  // Initial events are queued by the watch as a microtask: this one runs after that batch.
  if (fault?.closeWatch) queueMicrotask(() => queueMicrotask(end));
  return {
    stop: () => {
      for (const h of pending) clock.clearTimeout(h);
      pending.clear();
      w.stop();
    },
  };
}

/** Reads and parses a faults file (`FaultsFileError` for a bad one, naming file:line). */
export function readFaultsFile(file: string): FaultRule[] {
  return parseFaults(readFileSync(file, 'utf8'), file);
}

/** `--seed N`: a whole number, or an error message. */
export function parseSeed(v: string): number | string {
  const n = Number(v);
  return v.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff
    ? n
    : `--seed must be a whole number from 0 to 4294967295, got "${v}"`;
}
