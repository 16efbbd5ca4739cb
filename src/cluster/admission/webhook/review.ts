/**
 * The AdmissionReview a webhook is sent and the checks on what it answers
 * (k8s.io/apiserver admission/plugin/webhook/request/admissionreview.go), and a denial as the
 * apiserver returns it (webhook/errors/statuserror.go: `admission webhook "NAME" denied the
 * request: MESSAGE`, a code of at least 400).
 */
import { StatusError } from '../../apimachinery/errors';
import { isObject } from '../../apimachinery/patch';
import type { Status, StatusDetails } from '../../apimachinery/types';
import type { UserInfo } from '../../auth/authentication';

export interface GVK {
  group: string;
  version: string;
  kind: string;
}
export interface GVR {
  group: string;
  version: string;
  resource: string;
}

export interface ReviewInput {
  kind: GVK;
  resource: GVR;
  subResource: string;
  requestKind: GVK;
  requestResource: GVR;
  requestSubResource: string;
  name: string;
  namespace: string;
  operation: string;
  user: UserInfo;
  object: unknown;
  oldObject: unknown;
  dryRun: boolean;
  options: unknown;
}

/** The AdmissionRequest as its JSON tags write it (omitempty strings left out, objects null). */
export function admissionRequest(uid: string, r: ReviewInput): Record<string, unknown> {
  return {
    uid,
    kind: r.kind,
    resource: r.resource,
    ...(r.subResource ? { subResource: r.subResource } : {}),
    requestKind: r.requestKind,
    requestResource: r.requestResource,
    ...(r.requestSubResource ? { requestSubResource: r.requestSubResource } : {}),
    ...(r.name ? { name: r.name } : {}),
    ...(r.namespace ? { namespace: r.namespace } : {}),
    operation: r.operation,
    userInfo: { username: r.user.username, groups: r.user.groups },
    object: r.object ?? null,
    oldObject: r.oldObject ?? null,
    dryRun: r.dryRun,
    options: r.options ?? null,
  };
}

/** The first AdmissionReview version the webhook accepts that the apiserver speaks. */
export function reviewVersion(accepted: string[]): 'v1' | 'v1beta1' | undefined {
  return accepted.find((v): v is 'v1' | 'v1beta1' => v === 'v1' || v === 'v1beta1');
}

export interface AdmissionResponse {
  allowed: boolean;
  patch?: unknown[];
  patchType?: string;
  result?: Partial<Status>;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** VerifyAdmissionResponse: throws the reason a response is invalid (worded as upstream). */
export function verifyAdmissionResponse(
  uid: string,
  version: 'v1' | 'v1beta1',
  mutating: boolean,
  review: unknown,
): AdmissionResponse {
  const r = isObject(review) ? review : {};
  const response = isObject(r.response) ? r.response : undefined;
  if (!response) throw new Error('webhook response was absent');
  if (version === 'v1') {
    if (response.uid !== uid)
      throw new Error(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
    if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview') {
      const [g, v] = splitGV(String(r.apiVersion ?? ''));
      throw new Error(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${g}/${v}, Kind=${String(r.kind ?? '')}`,
      );
    }
  }
  const rawPatch = typeof response.patch === 'string' ? response.patch : '';
  const patchType = typeof response.patchType === 'string' ? response.patchType : undefined;
  let patchText = '';
  if (mutating) {
    if (version === 'v1') {
      if (rawPatch && patchType === undefined)
        throw new Error('webhook returned response.patch but not response.patchType');
      if (!rawPatch && patchType !== undefined)
        throw new Error('webhook returned response.patchType but not response.patch');
      if (patchType === '') throw new Error(`webhook returned invalid response.patchType of ""`);
    }
    patchText = rawPatch;
  } else if (version === 'v1') {
    if (rawPatch) throw new Error('validating webhook may not return response.patch');
    if (patchType !== undefined)
      throw new Error('validating webhook may not return response.patchType');
  }
  const out: AdmissionResponse = {
    allowed: response.allowed === true,
    warnings: Array.isArray(response.warnings)
      ? response.warnings.filter((w): w is string => typeof w === 'string')
      : [],
    auditAnnotations: isObject(response.auditAnnotations)
      ? (Object.fromEntries(
          Object.entries(response.auditAnnotations).filter(([, v]) => typeof v === 'string'),
        ) as Record<string, string>)
      : {},
    // AdmissionResponse.Result is `json:"status"` on the wire.
    ...(isObject(response.status) ? { result: response.status as Partial<Status> } : {}),
  };
  if (patchText) {
    out.patchType = patchType ?? 'JSONPatch';
    out.patch = decodePatch(patchText);
  }
  return out;
}

/** The base64 JSON Patch of a response; an undecodable one is the caller's call error. */
function decodePatch(b64: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(b64, 'base64').toString('utf8'));
  } catch (e) {
    throw new UndecodablePatch(e instanceof Error ? e.message : String(e));
  }
  if (!Array.isArray(parsed))
    throw new UndecodablePatch(
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
  return parsed;
}

export class UndecodablePatch extends Error {}

function splitGV(apiVersion: string): [string, string] {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

/** webhookerrors.ToStatusErr: a webhook's refusal, its result kept, its message prefixed. */
export function toStatusErr(webhook: string, result: Partial<Status> | undefined): StatusError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  const message =
    typeof r.message === 'string' && r.message
      ? `${deniedBy}: ${r.message}`
      : typeof r.reason === 'string' && r.reason
        ? `${deniedBy}: ${r.reason}`
        : `${deniedBy} without explanation`;
  const details = isObject(r.details) ? (r.details as StatusDetails) : undefined;
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    ...(typeof r.reason === 'string' && r.reason ? { reason: r.reason } : {}),
    ...(details && Object.keys(details).length ? { details } : {}),
    code,
  });
}
