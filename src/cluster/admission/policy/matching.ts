/**
 * Whether an admission policy or binding matches a request (k8s.io/apiserver
 * admission/plugin/policy/matching and generic/policy_matcher.go): its namespaceSelector and
 * objectSelector, its excludeResourceRules, then its resourceRules (each with optional
 * resourceNames) against the request's resource and — with matchPolicy Equivalent, the default —
 * against the other versions of the same stored resource, which then become the version the
 * policy sees the object at. A selector error counts only once the rules match; errors are
 * returned, not thrown: the dispatcher judges them by the policy's failurePolicy.
 */
import { newNotFound } from '../../apimachinery/errors';
import { isObject } from '../../apimachinery/patch';
import type { KubeObject } from '../../apimachinery/types';
import type { ResourceType } from '../../registry/registry';
import type { AdmissionAttributes } from '../admission';
import type { Rule } from '../webhook/config';
import type { WebhookHost } from '../webhook/invocation';
import {
  attrsOf,
  equivalentTypes,
  matchNamespace,
  matchObject,
  requestName,
  requestNamespace,
} from '../webhook/invocation';
import { ruleMatches } from '../webhook/rules';

/** admissionregistration/v1 NamedRuleWithOperations. */
interface NamedRule extends Rule {
  resourceNames: string[];
}

/** admissionregistration/v1 MatchResources, as a policy's matchConstraints or a binding's matchResources. */
export interface MatchResources {
  namespaceSelector: unknown;
  objectSelector: unknown;
  resourceRules: NamedRule[];
  excludeResourceRules: NamedRule[];
  matchPolicy: 'Equivalent' | 'Exact';
}

export type MatchOutcome =
  { matches: false } | { matches: true; t: ResourceType } | { error: string };

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function namedRules(v: unknown): NamedRule[] {
  return (Array.isArray(v) ? v : []).filter(isObject).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === 'string' ? r.scope : '*',
    resourceNames: strings(r.resourceNames),
  }));
}

/** MatchResources as stored (defaulted by the registry), or undefined when absent. */
export function matchResourcesOf(v: unknown): MatchResources | undefined {
  if (!isObject(v)) return undefined;
  return {
    namespaceSelector: v.namespaceSelector,
    objectSelector: v.objectSelector,
    resourceRules: namedRules(v.resourceRules),
    excludeResourceRules: namedRules(v.excludeResourceRules),
    matchPolicy: v.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
  };
}

/** errNilSelector */
export function nilSelector(which: 'namespace' | 'object'): string {
  return `a nil ${which}Selector was passed, please ensure selectors are initialized properly`;
}

/** matching.matchesResourceRules: the resource the request is seen as, when a rule matches. */
function matchingType(
  rules: NamedRule[],
  matchPolicy: MatchResources['matchPolicy'],
  a: AdmissionAttributes,
  host: WebhookHost,
): ResourceType | undefined {
  const name = requestName(a);
  const named = (r: NamedRule) => !r.resourceNames.length || r.resourceNames.includes(name);
  for (const r of rules) if (ruleMatches(r, attrsOf(a.type, a))) if (named(r)) return a.type;
  if (matchPolicy === 'Exact') return undefined;
  const equivalents = equivalentTypes(a.type, host);
  for (const r of rules)
    for (const t of equivalents) if (ruleMatches(r, attrsOf(t, a)) && named(r)) return t;
  return undefined;
}

/** matching.Matcher.Matches */
export function matches(
  m: MatchResources,
  a: AdmissionAttributes,
  host: WebhookHost,
): MatchOutcome {
  const ns = matchNamespace(m, a, host);
  if (ns === false) return { matches: false };
  const obj = matchObject(m, a);
  if (obj === false) return { matches: false };
  if (matchingType(m.excludeResourceRules, m.matchPolicy, a, host)) return { matches: false };
  const t = m.resourceRules.length ? matchingType(m.resourceRules, m.matchPolicy, a, host) : a.type;
  if (!t) return { matches: false };
  if (ns !== true) return { error: ns.message };
  if (obj !== true) return { error: obj.message };
  return { matches: true, t };
}

/** generic.matcher.DefinitionMatches: a policy's matchConstraints (required, selectors set). */
export function definitionMatches(
  h: { matchConstraints?: MatchResources; nilSelector?: 'namespace' | 'object' },
  a: AdmissionAttributes,
  host: WebhookHost,
): MatchOutcome {
  if (!h.matchConstraints)
    return { error: 'policy contained no match constraints, a required field' };
  if (h.nilSelector) return { error: nilSelector(h.nilSelector) };
  return matches(h.matchConstraints, a, host);
}

/** generic.matcher.BindingMatches: a binding without matchResources matches what its policy does. */
export function bindingMatches(
  b: { matchResources?: MatchResources; nilSelector?: 'namespace' | 'object' },
  a: AdmissionAttributes,
  host: WebhookHost,
): MatchOutcome {
  if (!b.matchResources) return { matches: true, t: a.type };
  if (b.nilSelector) return { error: nilSelector(b.nilSelector) };
  return matches(b.matchResources, a, host);
}

/**
 * Matcher.GetNamespace for `namespaceObject`: the request's Namespace (none for a cluster-scoped
 * request or a Namespace itself); a namespace that does not exist fails the request, NotFound.
 */
export function requestNamespaceObject(
  a: AdmissionAttributes,
  host: WebhookHost,
): KubeObject | undefined {
  const isNamespace = a.type.info.group === '' && a.type.info.kind === 'Namespace';
  const name = isNamespace ? '' : requestNamespace(a);
  if (!name) return undefined;
  const ns = host.peek({ apiVersion: 'v1', kind: 'Namespace' }, { name });
  if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, name);
  return ns;
}
