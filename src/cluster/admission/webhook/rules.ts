/**
 * A webhook rule against a request (k8s.io/apiserver admission/plugin/webhook/predicates/rules):
 * operation, group, version and `resource/subresource` each exact or `*` (a rule `pods/*` matches every pod subresource, a `*` resource with a status suffix every status),
 * and the scope (`Namespaced` matches namespaced objects but not Namespaces themselves,
 * `Cluster` cluster-scoped ones and Namespaces).
 */
import type { Rule } from './config';

export interface RuleAttributes {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
}

const exactOrWildcard = (items: string[], requested: string) =>
  items.some((i) => i === '*' || i === requested);

export function ruleMatches(r: Rule, a: RuleAttributes): boolean {
  return (
    scopeMatches(r.scope, a) &&
    r.operations.some((op) => op === '*' || op === a.operation) &&
    exactOrWildcard(r.apiGroups, a.group) &&
    exactOrWildcard(r.apiVersions, a.version) &&
    r.resources.some((res) => {
      const i = res.indexOf('/');
      const [name, sub] = i < 0 ? [res, ''] : [res.slice(0, i), res.slice(i + 1)];
      return (name === '*' || name === a.resource) && (sub === '*' || sub === a.subresource);
    })
  );
}

function scopeMatches(scope: string, a: RuleAttributes): boolean {
  const isNamespace = a.group === '' && a.version === 'v1' && a.resource === 'namespaces';
  switch (scope) {
    case '*':
      return true;
    case 'Namespaced':
      return !isNamespace && a.namespace !== '';
    case 'Cluster':
      return isNamespace || a.namespace === '';
    default:
      return false;
  }
}

/** The admission configuration kinds no API-registered webhook is called for (no circularity). */
export function isExemptConfigurationResource(group: string, kind: string): boolean {
  return (
    group === 'admissionregistration.k8s.io' &&
    [
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
    ].includes(kind)
  );
}
