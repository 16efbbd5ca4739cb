/**
 * ValidatePersistentVolumeClaimSpec (pkg/apis/core/validation), the rules a claim is created
 * under: its access modes, its storage request, its class and volume mode. Not yet the data
 * sources or the rules of an update (what may change once it is bound). ObjectMeta is validated
 * for every kind elsewhere. A request that is not positive is named as sent, where upstream
 * writes the Quantity's canonical form (`0` for `0Gi`).
 */
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type FieldError,
} from '../apimachinery/errors';
import { validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import { parseQuantity } from '../apimachinery/quantity';
import type { KubeObject } from '../apimachinery/types';

/** supportedAccessModes, sorted as sets.List gives them. */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];

export function validatePersistentVolumeClaim(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(obj.spec) ? obj.spec : {};
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (!modes.length)
    errs.push(fieldRequired('spec.accessModes', 'at least 1 access mode is required'));
  let oncePod = false;
  let other = false;
  for (const m of modes) {
    if (!ACCESS_MODES.includes(m as string))
      errs.push(fieldNotSupported('spec.accessModes', m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') oncePod = true;
    else if (ACCESS_MODES.includes(m as string)) other = true;
  }
  if (oncePod && other)
    errs.push(
      fieldForbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'),
    );
  const requests =
    isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {};
  const storage = requests.storage;
  if (storage === undefined) errs.push(fieldRequired('spec.resources[storage]'));
  else if ((parseQuantity(storage) ?? 0) <= 0)
    errs.push(
      fieldInvalid('spec.resources[storage]', String(storage), 'must be greater than zero'),
    );
  if (typeof spec.storageClassName === 'string' && spec.storageClassName)
    for (const m of validateName(spec.storageClassName, 'subdomain'))
      errs.push(fieldInvalid('spec.storageClassName', spec.storageClassName, m));
  if (typeof spec.volumeMode === 'string' && !VOLUME_MODES.includes(spec.volumeMode))
    errs.push(fieldNotSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  return errs;
}
