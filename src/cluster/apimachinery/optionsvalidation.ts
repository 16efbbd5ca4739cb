/**
 * The options of a write as apimachinery's `apis/meta/v1/validation` checks them before the
 * handler does anything (ValidateCreateOptions, ValidateUpdateOptions, ValidatePatchOptions, and
 * the dry-run check of DeleteOptions): violations are a 422 on the options kind of the
 * meta.k8s.io group (`PatchOptions.meta.k8s.io "" is invalid: ...`).
 */
import type { FieldError, StatusError } from './errors';
import { fieldForbidden, fieldNotSupported, fieldRequired, newInvalid } from './errors';
import type { PatchType } from './types';

const OPTIONS_KIND: Record<string, string> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

/** metav1's allowed fieldValidation values, sorted as sets.List lists them. */
const FIELD_VALIDATION = ['', 'Ignore', 'Strict', 'Warn'];

function invalid(method: string, errs: FieldError[]): StatusError {
  return newInvalid(
    { group: 'meta.k8s.io', kind: OPTIONS_KIND[method] ?? 'CreateOptions' },
    '',
    errs,
  );
}

/** Server-side apply names its manager: the PatchOptions 422 a client without one gets. */
export function fieldManagerRequired(): StatusError {
  return invalid('PATCH', [fieldRequired('fieldManager', 'is required for apply patch')]);
}

/**
 * Throws the 422 of a write's query options: `dryRun` other than `All`, a `fieldValidation`
 * other than Ignore, Warn or Strict; for PATCH, `force`
 * on a patch that is not an apply, and an apply without `fieldManager`.
 */
export function validateWriteOptions(
  method: string,
  q: URLSearchParams,
  patchType?: PatchType,
): void {
  const errs: FieldError[] = [];
  if (method === 'PATCH') {
    if (patchType !== 'apply') {
      if (q.has('force'))
        errs.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
    } else if (!q.get('fieldManager')) {
      errs.push(fieldRequired('fieldManager', 'is required for apply patch'));
    }
  }
  const dryRun = q.getAll('dryRun');
  if (dryRun.some((v) => v !== 'All')) errs.push(fieldNotSupported('dryRun', dryRun, ['All']));
  // ValidateFieldValidation, for the write verbs whose options carry it.
  const fieldValidation = q.get('fieldValidation') ?? '';
  if (method !== 'DELETE' && !FIELD_VALIDATION.includes(fieldValidation))
    errs.push(fieldNotSupported('fieldValidation', fieldValidation, FIELD_VALIDATION));
  if (errs.length) throw invalid(method, errs);
}
