/**
 * ConfigMap and Secret validation as kubernetes `pkg/apis/core/validation` does it
 * (ValidateConfigMap[Update], ValidateSecret[Update]): key names (IsConfigMapKey), the keys each
 * Secret type requires, and `immutable: true` freezing the data (and itself).
 */
import type { FieldError } from '../apimachinery/errors';
import { fieldForbidden, fieldInvalid, fieldRequired } from '../apimachinery/errors';
import { deepEqual, isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** apimachinery validation.IsConfigMapKey. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) errs.push(CONFIG_KEY_MSG);
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function keysOf(v: unknown): string[] {
  return isObject(v) ? Object.keys(v) : [];
}

function keyErrors(field: string, keys: string[]): FieldError[] {
  return keys.flatMap((k) => isConfigMapKey(k).map((m) => fieldInvalid(`${field}[${k}]`, k, m)));
}

/** The keys a Secret of each type must have in `data` (ValidateSecret). */
const REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

/** `immutable: true` on the old object: the new may change neither it nor `fields`. */
function immutableErrors(obj: Obj, old: Obj, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const frozen = 'field is immutable when `immutable` is set';
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldForbidden('immutable', frozen));
  for (const f of fields) if (!deepEqual(obj[f], old[f])) errs.push(fieldForbidden(f, frozen));
  return errs;
}

export function validateConfigMap(cm: KubeObject, old?: KubeObject): FieldError[] {
  const o = cm as Obj;
  const data = keysOf(o.data);
  const errs = [...keyErrors('data', data), ...keyErrors('binaryData', keysOf(o.binaryData))];
  for (const k of keysOf(o.binaryData))
    if (data.includes(k))
      errs.push(fieldInvalid(`binaryData[${k}]`, k, 'duplicate of key present in data'));
  return old ? [...immutableErrors(o, old as Obj, ['data', 'binaryData']), ...errs] : errs;
}

export function validateSecret(secret: KubeObject, old?: KubeObject): FieldError[] {
  const o = secret as Obj;
  const errs: FieldError[] = [];
  if (old) {
    if (o.type !== (old as Obj).type) errs.push(fieldInvalid('type', o.type, 'field is immutable'));
    errs.push(...immutableErrors(o, old as Obj, ['data']));
  }
  const data = keysOf(o.data);
  errs.push(...keyErrors('data', data));
  for (const k of REQUIRED_KEYS[String(o.type)] ?? [])
    if (!data.includes(k)) errs.push(fieldRequired(`data[${k}]`));
  return errs;
}
