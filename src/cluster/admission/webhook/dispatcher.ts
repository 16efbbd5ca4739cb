/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins (k8s.io/apiserver
 * admission/plugin/webhook/mutating and validating dispatchers), run inside a write through the
 * request's WebhookSession (session.ts): mutating webhooks one after the other, each seeing the
 * previous one's patch, reinvoked once (IfNeeded) when a later plugin changed the object; the
 * validating ones together. A call failure follows the failurePolicy (Fail: 500 `failed calling
 * webhook "NAME": …`; Ignore: skipped, with the failed-open audit annotation); a refusal is
 * `admission webhook "NAME" denied the request: …`; a dry run refuses webhooks with side effects.
 */
import { randomUUID } from 'node:crypto';
import { StatusError, newBadRequest, newInternalError } from '../../apimachinery/errors';
import { deepEqual, isObject, jsonPatch } from '../../apimachinery/patch';
import type { KubeObject } from '../../apimachinery/types';
import { clone } from '../../apimachinery/clone';
import type { AdmissionAttributes, AdmissionPlugin, MutatingAdmissionPlugin } from '../admission';
import type { ServiceMap } from './client';
import { WebhookCallError, postJSON } from './client';
import type { Webhook } from './config';
import { MUTATING, VALIDATING, webhooksOf } from './config';
import type { Invocation, WebhookHost } from './invocation';
import { requestName, requestNamespace, shouldCall } from './invocation';
import type { AdmissionResponse, ReviewInput } from './review';
import {
  UndecodablePatch,
  admissionRequest,
  reviewVersion,
  toStatusErr,
  verifyAdmissionResponse,
} from './review';
import type { WebhookSession } from './session';
import type { PendingCall } from './session';
import { PendingCalls } from './session';
import { isExemptConfigurationResource } from './rules';
import type { CallDetails } from './callrecord';
import { admissionVerdict } from './callrecord';

/** webhookutil.ErrCallingWebhook: the webhook could not be talked to (failurePolicy applies). */
export class CallingWebhookError extends Error {
  constructor(
    readonly webhook: string,
    reason: string,
  ) {
    super(`failed calling webhook "${webhook}": ${reason}`);
  }
}

/** The webhook's review of a request, as the dispatcher builds it for an invocation. */
function reviewInput(
  a: AdmissionAttributes,
  inv: Invocation,
  host: WebhookHost,
  session: WebhookSession,
  mutating: boolean,
): ReviewInput {
  const t = inv.t;
  const at = (o: KubeObject | undefined) =>
    o === undefined ? null : o.apiVersion === t.apiVersion ? o : host.convertTo(o, t.apiVersion);
  const object = a.operation === 'DELETE' ? null : at(mutating ? mutatingView(a) : a.object);
  return {
    kind: { group: t.info.group, version: t.info.version, kind: t.info.kind },
    resource: { group: t.info.group, version: t.info.version, resource: t.info.plural },
    subResource: a.subresource ?? '',
    requestKind: { group: a.type.info.group, version: a.type.info.version, kind: a.type.info.kind },
    requestResource: {
      group: a.type.info.group,
      version: a.type.info.version,
      resource: a.type.info.plural,
    },
    requestSubResource: a.subresource ?? '',
    name: requestName(a),
    namespace: requestNamespace(a),
    operation: a.operation,
    user: session.request.user,
    object,
    oldObject: a.operation === 'CREATE' ? null : at(a.old),
    dryRun: a.dryRun,
    options: session.request.options ?? null,
  };
}

/**
 * The object as mutating admission sees it: on a create, before the registry's BeforeCreate has
 * given it a uid, a creation time, a generation and a generated name (validating admission runs
 * after it and sees them).
 */
export function mutatingView(a: AdmissionAttributes): KubeObject {
  if (a.operation !== 'CREATE') return a.object;
  const v = { ...a.object, metadata: { ...a.object.metadata } };
  delete v.metadata.uid;
  delete v.metadata.creationTimestamp;
  delete v.metadata.generation;
  if (!a.name) delete v.metadata.name;
  return v;
}

/** One call: the review POSTed, the answer checked; a CallingWebhookError when that fails. */
async function call(
  h: Webhook,
  version: 'v1' | 'v1beta1',
  input: ReviewInput,
  services: ServiceMap,
): Promise<AdmissionResponse> {
  const uid = randomUUID();
  const review = {
    kind: 'AdmissionReview',
    apiVersion: `admission.k8s.io/${version}`,
    request: admissionRequest(uid, input),
  };
  let answer: unknown;
  try {
    answer = await postJSON(h.clientConfig, services, review, h.timeoutSeconds);
  } catch (err) {
    const msg = err instanceof WebhookCallError ? err.message : String(err);
    throw new CallingWebhookError(h.name, `failed to call webhook: ${msg}`);
  }
  try {
    return verifyAdmissionResponse(uid, version, h.mutating, answer);
  } catch (err) {
    if (err instanceof UndecodablePatch)
      throw new CallingWebhookError(
        h.name,
        `received undecodable patch in webhook response: ${err.message}`,
      );
    throw new CallingWebhookError(
      h.name,
      `received invalid webhook response: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** What the audit record says a call to `h` about `input` is for, and how it reads the answer. */
function forTheRecord(
  h: Webhook,
  input: ReviewInput,
): Pick<PendingCall, 'kind' | 'webhook' | 'about' | 'verdict' | 'failurePolicy'> {
  const resource = input.requestSubResource
    ? `${input.requestResource.resource}/${input.requestSubResource}`
    : input.requestResource.resource;
  const about: CallDetails = {
    configuration: h.configurationName,
    operation: input.operation,
    resource,
    ...(input.namespace ? { namespace: input.namespace } : {}),
    ...(input.name ? { name: input.name } : {}),
  };
  return {
    kind: h.mutating ? 'mutating' : 'validating',
    webhook: h.name,
    about,
    verdict: (r) => admissionVerdict(h.name, r as AdmissionResponse),
    failurePolicy: h.failurePolicy,
  };
}

/** The session's answer to one invocation: the response, or the call's error thrown. */
function answerKey(h: Webhook, round: number, input: ReviewInput): string {
  return `${h.mutating ? 'mutating' : 'validating'}\0${h.uid}\0${round}\0${JSON.stringify(h.clientConfig)}\0${JSON.stringify(input)}`;
}

/** callHook's checks before a call: webhooks with side effects refuse dry runs. */
function dryRunRefusal(h: Webhook, a: AdmissionAttributes): Error | undefined {
  if (!a.dryRun) return undefined;
  if (h.sideEffects === undefined)
    return new CallingWebhookError(h.name, 'Webhook SideEffects is nil');
  if (h.sideEffects !== 'None' && h.sideEffects !== 'NoneOnDryRun')
    return newBadRequest(`admission webhook "${h.name}" does not support dry run`);
  return undefined;
}

function noVersion(h: Webhook): CallingWebhookError {
  return new CallingWebhookError(
    h.name,
    'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
  );
}

/** Warnings and audit annotations of an answer, recorded on the request. */
function recordAnswer(h: Webhook, r: AdmissionResponse, session: WebhookSession): void {
  session.warnings.push(...r.warnings);
  for (const [k, v] of Object.entries(r.auditAnnotations))
    session.annotations[`${h.name}/${k}`] = v;
}

/** The outcome of a failed invocation under the webhook's failurePolicy: the error to refuse with. */
function failure(
  h: Webhook,
  err: unknown,
  session: WebhookSession,
  openKey: string,
): Error | undefined {
  if (err instanceof PendingCalls) throw err;
  if (err instanceof CallingWebhookError) {
    if (h.failurePolicy === 'Ignore') {
      session.annotations[openKey] = h.name;
      return undefined;
    }
    return newInternalError(err.message);
  }
  return err instanceof Error ? err : new Error(String(err));
}

function exempt(a: AdmissionAttributes): boolean {
  return isExemptConfigurationResource(a.type.info.group, a.type.info.kind);
}

/** The mutating webhooks' reinvocation state across the chain's two passes (reinvocationcontext.go). */
export class ReinvokeContext {
  lastOutput: unknown;
  previouslyInvoked = new Set<string>();
  reinvoke = new Set<string>();
  requireReinvokingPreviouslyInvoked(): void {
    for (const u of this.previouslyInvoked) this.reinvoke.add(u);
    this.previouslyInvoked = new Set();
  }
}

export function mutatingWebhookAdmission(
  host: WebhookHost,
  services: ServiceMap,
): MutatingAdmissionPlugin {
  return (a) => {
    const session = a.session;
    if (!session || exempt(a)) return;
    const hooks = webhooksOf(host.scan(MUTATING), true);
    if (!hooks.length) return;
    const rc = a.reinvocation!;
    let wc = rc.values.get('MutatingAdmissionWebhook') as ReinvokeContext | undefined;
    if (!wc) rc.values.set('MutatingAdmissionWebhook', (wc = new ReinvokeContext()));
    if (rc.isReinvoke && !deepEqual(wc.lastOutput, a.object))
      wc.requireReinvokingPreviouslyInvoked();
    const round = rc.isReinvoke ? 1 : 0;
    const review = (inv: Invocation) => reviewInput(a, inv, host, session, true);
    try {
      for (const [i, h] of hooks.entries()) {
        const inv = shouldCall(h, a, host, review);
        if (!inv) continue;
        if (rc.isReinvoke && !wc.reinvoke.has(h.uid)) continue;
        let changed = false;
        let err: unknown;
        try {
          changed = callMutating(h, inv, a, session, round, i, review, services, host);
        } catch (e) {
          err = e;
        }
        if (changed) {
          wc.requireReinvokingPreviouslyInvoked();
          rc.shouldReinvoke = true;
        }
        if (h.reinvocationPolicy === 'IfNeeded') wc.previouslyInvoked.add(h.uid);
        if (err === undefined) continue;
        const refusal = failure(
          h,
          err,
          session,
          `failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${i}`,
        );
        if (refusal) throw refusal;
      }
    } finally {
      wc.lastOutput = clone(a.object);
    }
  };
}

/** Calls one mutating webhook and applies its patch to the object; true when that changed it. */
function callMutating(
  h: Webhook,
  inv: Invocation,
  a: AdmissionAttributes,
  session: WebhookSession,
  round: number,
  index: number,
  review: (inv: Invocation) => ReviewInput,
  services: ServiceMap,
  host: WebhookHost,
): boolean {
  const refused = dryRunRefusal(h, a);
  if (refused) throw refused;
  const version = reviewVersion(h.admissionReviewVersions);
  if (!version) throw noVersion(h);
  const input = review(inv);
  const r = session.need({
    key: answerKey(h, round, input),
    call: () => call(h, version, input, services),
    ...forTheRecord(h, input),
  }) as AdmissionResponse;
  recordAnswer(h, r, session);
  const annotate = (mutated: boolean) =>
    (session.annotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`] =
      JSON.stringify({ configuration: h.configurationName, webhook: h.name, mutated }));
  if (!r.allowed) {
    annotate(false);
    throw toStatusErr(h.name, r.result);
  }
  if (!r.patch || !r.patch.length) {
    annotate(false);
    return false;
  }
  if (input.object === null) {
    annotate(false);
    throw newInternalError(
      `admission webhook "${h.name}" attempted to modify the object, which is not supported for this operation`,
    );
  }
  if (r.patchType !== 'JSONPatch') {
    annotate(false);
    throw new CallingWebhookError(h.name, `unsupported patch type "${r.patchType}"`);
  }
  let patched: KubeObject;
  try {
    patched = jsonPatch(input.object as never, r.patch as never) as unknown as KubeObject;
  } catch (err) {
    annotate(false);
    throw newInternalError(err instanceof StatusError ? err.message : String(err));
  }
  const changed = !deepEqual(input.object, patched);
  session.annotations[`patch.webhook.admission.k8s.io/round_${round}_index_${index}`] =
    JSON.stringify({
      configuration: h.configurationName,
      webhook: h.name,
      patch: r.patch,
      patchType: 'JSONPatch',
    });
  annotate(changed);
  if (changed) writeBack(a, patched, host);
  return changed;
}

/**
 * The patched object becomes the request's object, in place (the write holds it, and holds its
 * metadata object too: the write goes on to set resourceVersion and managedFields there), at the
 * request's version — converted back, when the webhook was called at an equivalent version, as
 * the dispatcher's versioned attributes convert it; what BeforeCreate sets after mutating
 * admission on a create is kept.
 */
export function writeBack(a: AdmissionAttributes, patched: KubeObject, host: WebhookHost): void {
  const target = a.object as Record<string, unknown>;
  const md = a.object.metadata as Record<string, unknown>;
  const kept =
    a.operation === 'CREATE'
      ? {
          uid: md.uid,
          creationTimestamp: md.creationTimestamp,
          generation: md.generation,
          name: md.name,
        }
      : undefined;
  const back =
    patched.apiVersion !== undefined && patched.apiVersion !== a.type.apiVersion
      ? host.convertTo(patched, a.type.apiVersion)
      : patched;
  const next = clone(back) as unknown as Record<string, unknown>;
  for (const k of Object.keys(target)) delete target[k];
  for (const k of Object.keys(md)) delete md[k];
  if (isObject(next.metadata)) Object.assign(md, next.metadata);
  // In the patched object's key order, metadata where the patch left it (or after kind).
  for (const [k, v] of Object.entries(next)) target[k] = k === 'metadata' ? md : v;
  target.metadata = md;
  a.object.apiVersion = a.type.apiVersion;
  if (kept) {
    for (const [k, v] of Object.entries(kept)) {
      if (k === 'name' && md.name) continue;
      if (v === undefined) delete md[k];
      else md[k] = v;
    }
  }
}

export function validatingWebhookAdmission(
  host: WebhookHost,
  services: ServiceMap,
): AdmissionPlugin {
  return (a) => {
    const session = a.session;
    if (!session || exempt(a)) return;
    const hooks = webhooksOf(host.scan(VALIDATING), false);
    if (!hooks.length) return;
    const review = (inv: Invocation) => reviewInput(a, inv, host, session, false);
    const invocations: Array<{ h: Webhook; inv: Invocation; index: number }> = [];
    hooks.forEach((h, index) => {
      const inv = shouldCall(h, a, host, review);
      if (inv) invocations.push({ h, inv, index });
    });
    if (!invocations.length) return;
    // Called together: every missing answer is asked for in one go.
    const pending: PendingCall[] = [];
    const planned = invocations.map(({ h, inv, index }) => {
      const refused = dryRunRefusal(h, a);
      const version = reviewVersion(h.admissionReviewVersions);
      if (refused || !version) return { h, index, error: refused ?? noVersion(h) };
      const input = review(inv);
      const key = answerKey(h, 0, input);
      if (!session.outcome(key))
        pending.push({
          key,
          call: () => call(h, version, input, services),
          ...forTheRecord(h, input),
        });
      return { h, index, key };
    });
    if (pending.length) throw new PendingCalls(pending);
    const errors: Error[] = [];
    for (const p of planned) {
      let err: unknown = 'error' in p ? p.error : undefined;
      if ('key' in p && p.key !== undefined) {
        const o = session.outcome(p.key)!;
        if (!o.ok) err = o.error;
        else {
          const r = o.value as AdmissionResponse;
          recordAnswer(p.h, r, session);
          if (!r.allowed) err = toStatusErr(p.h.name, r.result);
        }
      }
      if (err === undefined) continue;
      const refusal = failure(
        p.h,
        err,
        session,
        `failed-open.validating.webhook.admission.k8s.io/round_0_index_${p.index}`,
      );
      if (refusal) errors.push(refusal);
    }
    if (errors.length) throw errors[0];
  };
}
