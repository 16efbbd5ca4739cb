/**
 * What the audit record keeps of one webhook call a request made: which webhook, what it was
 * asked about, what it answered (allowed or denied with the refusal's code and message, a patch)
 * or how the call failed (time-out, unreachable, an invalid answer) and what the failurePolicy
 * made of that, and how long it took. kube-apiserver keeps less (audit annotations and its
 * webhook metrics); the editor shows these under the write that made them, so an operator's
 * author sees which webhook refused or changed their write, and how long it waited for it.
 */
import type { AdmissionResponse } from './review';
import { toStatusErr } from './review';

export interface WebhookCallRecord {
  /** `mutating`, `validating` or `conversion`. */
  kind: string;
  /** The webhook's name (a conversion webhook's: its CRD's). */
  webhook: string;
  /** The Mutating-/ValidatingWebhookConfiguration the webhook is in. */
  configuration?: string;
  /** What the AdmissionReview asked about: CREATE, UPDATE, DELETE or CONNECT… */
  operation?: string;
  /** …of this resource (`plural` or `plural/subresource`) and object. */
  resource?: string;
  namespace?: string;
  name?: string;
  /** Wall-clock ms since the epoch the call started, and how long it took. */
  start: number;
  ms: number;
  /** The webhook answered (false: the call failed, `error` says how). */
  ok: boolean;
  /** An admission webhook's verdict. */
  allowed?: boolean;
  /** A denial as the request's refusal carries it: `admission webhook "NAME" denied the request: …`. */
  code?: number;
  message?: string;
  /** A mutating webhook answered with a patch. */
  patched?: boolean;
  /** A failed call: Go's wording of the failure, whether it was the call's time-out. */
  error?: string;
  timedOut?: boolean;
  /** The webhook's failurePolicy, recorded for failed calls: Ignore lets the request go on. */
  failurePolicy?: 'Fail' | 'Ignore';
}

/** What an admission call's record says beyond who and when, from its outcome. */
export type CallDetails = Omit<WebhookCallRecord, 'kind' | 'webhook' | 'start' | 'ms' | 'ok'>;

/** The verdict of an AdmissionResponse, as the record keeps it. */
export function admissionVerdict(webhook: string, r: AdmissionResponse): CallDetails {
  if (!r.allowed) {
    const refusal = toStatusErr(webhook, r.result);
    return { allowed: false, code: refusal.status.code, message: refusal.message };
  }
  return { allowed: true, ...(r.patch?.length ? { patched: true } : {}) };
}

/** A failed call, as the record keeps it: the wording, and whether it ran out of time. */
export function callFailure(err: Error): CallDetails {
  return {
    error: err.message,
    ...(/context deadline exceeded/.test(err.message) ? { timedOut: true } : {}),
  };
}
