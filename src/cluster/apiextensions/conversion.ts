/**
 * CRD conversion (apiextensions-apiserver `pkg/apiserver/conversion`): how an object stored at one
 * version of a custom resource is served at another. `None` rewrites the apiVersion and nothing
 * else (nopConverter); `Webhook` sends the object in a ConversionReview to the CRD's
 * `spec.conversion.webhook.clientConfig` and checks the answer as webhook_converter.go does (the
 * review's kind and uid, the count, each object's apiVersion and kind, metadata unchanged but for
 * labels and annotations, which it validates), its errors worded as there
 * (`conversion webhook for stable.example.com/v1, Kind=Widget failed: …`).
 *
 * As kube-apiserver does, every object is converted on its own (the watch cache converts each item
 * of a list, so a list of N objects makes N calls), and the call's time-out is the client's 30 s.
 */
import { goJsonType } from '../apimachinery/unstructured';
import { randomUUID } from 'node:crypto';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { validateAnnotations, validateLabels } from '../apimachinery/names';
import { postJSON } from '../admission/webhook/client';
import type { ServiceMap, WebhookClientConfig } from '../admission/webhook/client';

type Obj = Record<string, unknown>;

/** A CRD's `spec.conversion` with the v1 defaults (strategy None). */
export interface CrdConversion {
  strategy: string;
  clientConfig?: WebhookClientConfig;
  conversionReviewVersions: string[];
}

/** The webhook client's time-out when none is configured (webhook.ClientManager's 30 s). */
const CALL_TIMEOUT_SECONDS = 30;

export function crdConversion(crd: KubeObject): CrdConversion {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const conv = isObject(spec.conversion) ? spec.conversion : {};
  const webhook = isObject(conv.webhook) ? conv.webhook : {};
  return {
    strategy: typeof conv.strategy === 'string' ? conv.strategy : 'None',
    ...(isObject(webhook.clientConfig)
      ? { clientConfig: webhook.clientConfig as WebhookClientConfig }
      : {}),
    conversionReviewVersions: Array.isArray(webhook.conversionReviewVersions)
      ? (webhook.conversionReviewVersions as string[])
      : [],
  };
}

/** Whether reading or writing at `apiVersion` an object stored at another calls a webhook. */
export function convertsByWebhook(conv: CrdConversion | undefined): conv is CrdConversion {
  return conv?.strategy === 'Webhook';
}

/** schema.GroupVersionKind's String(): `group/version, Kind=kind`. */
function gvkString(o: Obj): string {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const [group, version] = av.includes('/') ? av.split('/', 2) : ['', av];
  return `${group}/${version}, Kind=${typeof o.kind === 'string' ? o.kind : ''}`;
}

/** The ConversionReview sent for `objects`, in the first review version the CRD accepts. */
export function conversionReview(
  versions: string[],
  objects: Obj[],
  desiredAPIVersion: string,
  uid: string,
): Obj {
  for (const v of versions) {
    if (v === 'v1' || v === 'v1beta1')
      return {
        kind: 'ConversionReview',
        apiVersion: `apiextensions.k8s.io/${v}`,
        request: { uid, desiredAPIVersion, objects },
        // The empty response Go serializes along (its fields carry no omitempty).
        response: { uid: '', convertedObjects: null, result: { metadata: {} } },
      };
  }
  throw new Error('no supported conversion review versions');
}

/**
 * The converted objects a review answer carries, or the error getConvertedObjectsFromResponse
 * makes of it. `reviewVersion` is the version the review was sent in (a v1beta1 answer is not
 * checked for kind or uid, for compatibility, as upstream).
 */
export function convertedObjectsOf(reviewVersion: string, uid: string, answer: unknown): unknown[] {
  if (!isObject(answer))
    throw new Error(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(answer)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const av = typeof answer.apiVersion === 'string' ? answer.apiVersion : '';
  const kind = typeof answer.kind === 'string' ? answer.kind : '';
  if (!av || !kind) throw new Error(`Object 'Kind' is missing in '${JSON.stringify(answer)}'`);
  // The client's scheme holds the two ConversionReview types and nothing else.
  if (
    (av !== 'apiextensions.k8s.io/v1' && av !== 'apiextensions.k8s.io/v1beta1') ||
    kind !== 'ConversionReview'
  )
    throw new Error(
      `no kind "${kind}" is registered for version "${av}" in scheme "pkg/runtime/scheme.go:111"`,
    );
  const answered = av.slice('apiextensions.k8s.io/'.length);
  if (answered !== reviewVersion)
    // The client decodes into the review type it sent; the scheme has no conversion between them.
    throw new Error(
      `converting (${answered}.ConversionReview) to (${reviewVersion}.ConversionReview): unknown conversion`,
    );
  const response = answer.response;
  if (!isObject(response)) throw new Error('no response provided');
  if (reviewVersion === 'v1') {
    const got = typeof response.uid === 'string' ? response.uid : '';
    if (got !== uid) throw new Error(`expected response.uid=${goQuote(uid)}, got ${goQuote(got)}`);
  }
  const result = isObject(response.result) ? response.result : {};
  const status = typeof result.status === 'string' ? result.status : '';
  if (status !== 'Success') {
    if (typeof result.message === 'string' && result.message) throw new Error(result.message);
    throw new Error(`response.result.status was '${status}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? (response.convertedObjects as unknown[]) : [];
}

/**
 * One object converted to `desiredAPIVersion` from the webhook's answer: checked and with the
 * original's metadata put back but for labels and annotations (webhookConverter.Convert,
 * validateConvertedObject, restoreObjectMeta). Throws with the apiserver's message.
 */
export function checkConverted(
  original: Obj,
  desiredAPIVersion: string,
  converted: unknown[],
): Obj {
  const from = gvkString(original);
  if (converted.length !== 1)
    throw new Error(
      `conversion webhook for ${from} returned ${converted.length} objects, expected 1`,
    );
  const out = converted[0];
  if (!isObject(out))
    throw new Error(
      `json: cannot unmarshal ${goJsonType(out)} into Go value of type map[string]interface {}`,
    );
  const outAv = typeof out.apiVersion === 'string' ? out.apiVersion : '';
  if (outAv !== desiredAPIVersion)
    throw new Error(
      `conversion webhook for ${from} returned invalid object at index 0: invalid groupVersion (expected ${desiredAPIVersion}, received ${outAv})`,
    );
  const outKind = typeof out.kind === 'string' ? out.kind : '';
  if (outKind !== original.kind)
    throw new Error(
      `conversion webhook for ${from} returned invalid object at index 0: invalid kind (expected ${String(original.kind)}, received ${outKind})`,
    );
  const invalid = validateConvertedObject(original, out);
  if (invalid)
    throw new Error(`conversion webhook for ${from} returned invalid object: ${invalid}`);
  const bad = restoreObjectMeta(original, out);
  if (bad) throw new Error(`conversion webhook for ${from} returned invalid metadata: ${bad}`);
  return out;
}

function meta(o: Obj): Obj {
  return isObject(o.metadata) ? o.metadata : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Kind, name, namespace and uid must be the original's. */
function validateConvertedObject(inObj: Obj, outObj: Obj): string | undefined {
  const a = meta(inObj);
  const b = meta(outObj);
  const pairs: Array<[string, string, string]> = [
    ['kind', str(inObj.kind), str(outObj.kind)],
    ['name', str(a.name), str(b.name)],
    ['namespace', str(a.namespace), str(b.namespace)],
    ['UID', str(a.uid), str(b.uid)],
  ];
  for (const [what, e, g] of pairs) if (e !== g) return `must have the same ${what}: ${e} != ${g}`;
  return undefined;
}

/** The original's metadata, with the webhook's labels and annotations (validated if changed). */
function restoreObjectMeta(original: Obj, converted: Obj): string | undefined {
  if (!('metadata' in converted)) return 'missing metadata in converted object';
  const response = converted.metadata;
  if (!isObject(response))
    return `invalid metadata of type ${goJsonType(response)} in converted object`;
  const restored = structuredClone(meta(original));
  converted.metadata = restored;
  for (const fld of ['labels', 'annotations'] as const) {
    const given = response[fld];
    if (given === undefined || given === null) {
      delete restored[fld];
      continue;
    }
    if (!isObject(given))
      return `invalid metadata.${fld} of type ${goJsonType(given)} in converted object`;
    const before = isObject(restored[fld]) ? (restored[fld] as Obj) : {};
    let changed = Object.keys(before).length !== Object.keys(given).length;
    for (const [k, v] of Object.entries(given)) {
      if (typeof v !== 'string')
        return `metadata.${fld}[${k}] must be a string, but is ${goJsonType(v)} in converted object`;
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs =
        fld === 'labels'
          ? validateLabels(given, 'metadata.labels')
          : validateAnnotations(given, 'metadata.annotation');
      const rendered = errs.map((e) => `${e.field}: ${e.message}`);
      if (rendered.length === 1) return rendered[0];
      if (rendered.length) return `[${rendered.join(', ')}]`;
    }
    restored[fld] = given;
  }
  return undefined;
}

function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * Converts one object through the CRD's webhook: the ConversionReview POSTed to its client
 * config, the answer checked. Rejects with the apiserver's message (wrapped by the caller into
 * the 500 it serves).
 */
export async function convertByWebhook(
  conv: CrdConversion,
  services: ServiceMap,
  obj: Obj,
  desiredAPIVersion: string,
): Promise<Obj> {
  const uid = randomUUID();
  const review = conversionReview(conv.conversionReviewVersions, [obj], desiredAPIVersion, uid);
  const reviewVersion = String(review.apiVersion).slice('apiextensions.k8s.io/'.length);
  let converted: unknown[];
  try {
    const answer = await postJSON(conv.clientConfig ?? {}, services, review, CALL_TIMEOUT_SECONDS);
    converted = convertedObjectsOf(reviewVersion, uid, answer);
  } catch (err) {
    throw new Error(
      `conversion webhook for ${gvkString(obj)} failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return checkConverted(obj, desiredAPIVersion, converted);
}
