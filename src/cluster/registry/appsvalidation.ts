/**
 * ControllerRevision validation (pkg/apis/apps/validation): a revision number that is not
 * negative, and data that is a JSON object, set at create and never changed after. ObjectMeta is
 * validated for every kind elsewhere.
 */
import { fieldInvalid, fieldRequired, type FieldError } from '../apimachinery/errors';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

export function validateControllerRevision(obj: KubeObject, old?: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof obj.revision === 'number' && obj.revision < 0)
    errs.push(fieldInvalid('revision', obj.revision, 'must be greater than or equal to 0'));
  if (old) {
    // ValidateControllerRevisionUpdate: data is immutable.
    if (!deepEqual(obj.data, old.data))
      errs.push(fieldInvalid('data', obj.data, 'field is immutable'));
  } else if (obj.data == null) errs.push(fieldRequired('data', 'data is mandatory'));
  else if (!isObject(obj.data))
    errs.push(fieldRequired('data', 'data must be a valid JSON object'));
  return errs;
}
