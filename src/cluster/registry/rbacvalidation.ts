/**
 * ValidateRoleBinding and ValidateClusterRoleBinding (pkg/apis/rbac/validation): the roleRef
 * names a Role or ClusterRole (a ClusterRoleBinding only a ClusterRole) of the RBAC group by a
 * path-segment name, and each subject is a ServiceAccount, User or Group as its kind requires.
 * ObjectMeta is validated for every kind elsewhere.
 */
import {
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type FieldError,
} from '../apimachinery/errors';
import { isPathSegmentName, validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function validateRoleBinding(obj: KubeObject, clusterScoped: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = isObject(obj.roleRef) ? obj.roleRef : {};
  if (str(ref.apiGroup) !== RBAC_GROUP)
    errs.push(fieldNotSupported('roleRef.apiGroup', str(ref.apiGroup), [RBAC_GROUP]));
  const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(str(ref.kind)))
    errs.push(fieldNotSupported('roleRef.kind', str(ref.kind), kinds));
  const name = str(ref.name);
  if (!name) errs.push(fieldRequired('roleRef.name'));
  else for (const m of isPathSegmentName(name)) errs.push(fieldInvalid('roleRef.name', name, m));
  const subjects = Array.isArray(obj.subjects) ? obj.subjects : [];
  subjects.forEach((s, i) =>
    errs.push(...validateSubject(isObject(s) ? s : {}, !clusterScoped, `subjects[${i}]`)),
  );
  return errs;
}

/** ValidateRoleBindingSubject. */
function validateSubject(
  s: Record<string, unknown>,
  namespaced: boolean,
  at: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s.name);
  const apiGroup = str(s.apiGroup);
  if (!name) errs.push(fieldRequired(`${at}.name`));
  switch (str(s.kind)) {
    case 'ServiceAccount':
      if (name)
        for (const m of validateName(name, 'subdomain'))
          errs.push(fieldInvalid(`${at}.name`, name, m));
      if (apiGroup) errs.push(fieldNotSupported(`${at}.apiGroup`, apiGroup, ['']));
      if (!namespaced && !str(s.namespace)) errs.push(fieldRequired(`${at}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP)
        errs.push(fieldNotSupported(`${at}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldNotSupported(`${at}.kind`, str(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}
