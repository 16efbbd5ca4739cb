/**
 * Validation and defaults of a CRD's `spec.conversion` (apiextensions validation.go
 * validateCustomResourceConversion, v1 defaults): the strategy, and for Webhook a client config
 * with exactly one of url or service and at least one ConversionReview version this apiserver
 * speaks. Errors name the internal fields (`spec.conversion.webhookClientConfig`,
 * `spec.conversion.conversionReviewVersions`), as kube-apiserver reports them for a v1 CRD.
 */
import type { FieldError } from '../apimachinery/errors';
import {
  RawValue,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../apimachinery/errors';
import { validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import {
  validateCABundle,
  validateWebhookService,
  validateWebhookURL,
} from '../admission/webhook/clientvalidation';

type Obj = Record<string, unknown>;

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** The v1 defaults: `strategy: None` when unset, a Service reference's port 443. */
export function defaultConversion(spec: Obj): void {
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  const conv = spec.conversion as Obj;
  const service =
    isObject(conv.webhook) && isObject(conv.webhook.clientConfig)
      ? conv.webhook.clientConfig.service
      : undefined;
  if (isObject(service) && service.port === undefined) service.port = 443;
}

/**
 * What an update relaxes (validationOptions): an old CRD whose review versions were all
 * unrecognized may keep them; an invalid caBundle may stay while the old one was invalid too.
 */
export interface ConversionValidationOptions {
  requireRecognized: boolean;
  allowInvalidCABundle: boolean;
}

/** The options for a create (`old` undefined) or an update of `old`'s spec. */
export function conversionValidationOptions(old: Obj | undefined): ConversionValidationOptions {
  if (!old) return { requireRecognized: true, allowInvalidCABundle: true };
  const conv = isObject(old.conversion) ? old.conversion : undefined;
  const webhook = conv && isObject(conv.webhook) ? conv.webhook : undefined;
  const versions =
    webhook && Array.isArray(webhook.conversionReviewVersions)
      ? (webhook.conversionReviewVersions as unknown[])
      : [];
  const ca = webhook && isObject(webhook.clientConfig) ? webhook.clientConfig.caBundle : undefined;
  return {
    requireRecognized:
      !versions.length || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(String(v))),
    // The fake establishes a CRD as it stores it, so the old one always was.
    allowInvalidCABundle:
      typeof ca === 'string' && ca !== '' && validateCABundle('caBundle', ca).length > 0,
  };
}

export function validateConversion(
  spec: Obj,
  opts: ConversionValidationOptions = { requireRecognized: true, allowInvalidCABundle: true },
): FieldError[] {
  const conversion = spec.conversion;
  if (!isObject(conversion)) return [];
  const path = 'spec.conversion';
  const errs: FieldError[] = [];
  const requireRecognized = opts.requireRecognized;
  if (
    conversion.strategy !== 'None' &&
    conversion.strategy !== undefined &&
    spec.preserveUnknownFields === true
  )
    errs.push(
      fieldInvalid(
        `${path}.strategy`,
        conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  const strategy = typeof conversion.strategy === 'string' ? conversion.strategy : '';
  if (!strategy) errs.push(fieldRequired(`${path}.strategy`));
  else if (strategy !== 'None' && strategy !== 'Webhook')
    errs.push(fieldNotSupported(`${path}.strategy`, strategy, ['None', 'Webhook']));
  const webhook = isObject(conversion.webhook) ? conversion.webhook : undefined;
  const cc = webhook && isObject(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const versions =
    webhook && Array.isArray(webhook.conversionReviewVersions)
      ? (webhook.conversionReviewVersions as unknown[]).map(String)
      : [];
  const ccPath = `${path}.webhookClientConfig`;
  const vPath = `${path}.conversionReviewVersions`;
  if (strategy === 'Webhook') {
    if (!cc) errs.push(fieldRequired(ccPath, 'required when strategy is set to Webhook'));
    else {
      const url = typeof cc.url === 'string' ? cc.url : undefined;
      const service = isObject(cc.service) ? cc.service : undefined;
      if ((url === undefined) === (service === undefined))
        errs.push(fieldRequired(ccPath, 'exactly one of url or service is required'));
      else if (url !== undefined) errs.push(...validateWebhookURL(`${ccPath}.url`, url, true));
      else if (service)
        errs.push(
          ...validateWebhookService(
            `${ccPath}.service`,
            typeof service.namespace === 'string' ? service.namespace : '',
            typeof service.name === 'string' ? service.name : '',
            typeof service.path === 'string' ? service.path : undefined,
            typeof service.port === 'number' ? service.port : 443,
          ),
        );
      if (typeof cc.caBundle === 'string' && cc.caBundle && !opts.allowInvalidCABundle)
        errs.push(...validateCABundle(`${ccPath}.caBundle`, cc.caBundle));
    }
    errs.push(...validateReviewVersions(versions, requireRecognized, vPath));
  } else {
    if (cc)
      errs.push(fieldForbidden(ccPath, 'should not be set when strategy is not set to Webhook'));
    if (versions.length)
      errs.push(fieldForbidden(vPath, 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

function validateReviewVersions(
  versions: string[],
  requireRecognized: boolean,
  path: string,
): FieldError[] {
  if (!versions.length) return [fieldRequired(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldInvalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of validateName(v, 'dns1035')) errs.push(fieldInvalid(`${path}[${i}]`, v, msg));
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted)
    errs.push(
      fieldInvalid(
        path,
        new RawValue(JSON.stringify(versions)),
        `must include at least one of ${[...ACCEPTED_REVIEW_VERSIONS].sort().join(', ')}`,
      ),
    );
  return errs;
}
