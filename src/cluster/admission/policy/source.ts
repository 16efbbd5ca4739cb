/**
 * The admission policies in force (Validating- or MutatingAdmissionPolicies) and their bindings,
 * read from the store on each write (generic/policy_source.go's hooks): a policy with no binding
 * is not a hook; a binding names its policy; a policy whose paramKind the cluster does not serve
 * carries a configuration error. What a policy's spec says beyond that is read by its plugin.
 */
import { isObject } from '../../apimachinery/patch';
import type { KubeObject, TypeRef } from '../../apimachinery/types';
import type { ResourceType } from '../../registry/registry';
import type { MatchCondition } from '../webhook/config';
import type { WebhookHost } from '../webhook/invocation';
import type { MatchResources } from './matching';
import { matchResourcesOf } from './matching';
import type { NamedExpression } from './activation';

const GROUP_VERSION = 'admissionregistration.k8s.io/v1';

/** A policy kind and its binding kind. */
export interface PolicyKinds {
  policy: TypeRef;
  binding: TypeRef;
}

export const VALIDATING_POLICY: PolicyKinds = {
  policy: { apiVersion: GROUP_VERSION, kind: 'ValidatingAdmissionPolicy' },
  binding: { apiVersion: GROUP_VERSION, kind: 'ValidatingAdmissionPolicyBinding' },
};

export const MUTATING_POLICY: PolicyKinds = {
  policy: { apiVersion: GROUP_VERSION, kind: 'MutatingAdmissionPolicy' },
  binding: { apiVersion: GROUP_VERSION, kind: 'MutatingAdmissionPolicyBinding' },
};

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: unknown;
  parameterNotFoundAction?: string;
}

export interface Binding {
  name: string;
  policyName: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  /** matchResources is set but lacks a selector (the matcher's errNilSelector). */
  nilSelector?: 'namespace' | 'object';
  /** A ValidatingAdmissionPolicyBinding's validationActions (none for a mutating one). */
  validationActions: string[];
}

/** What every policy's spec holds that its plugin reads the same way. */
export interface CommonSpec {
  failurePolicy: 'Fail' | 'Ignore';
  matchConditions: MatchCondition[];
  variables: NamedExpression[];
}

export interface Hook<S extends CommonSpec> {
  name: string;
  spec: S;
  matchConstraints?: MatchResources;
  nilSelector?: 'namespace' | 'object';
  paramKind?: { apiVersion: string; kind: string };
  /** The served resource of paramKind, when there is one. */
  paramType?: ResourceType;
  configurationError?: string;
  bindings: Binding[];
}

type Obj = Record<string, unknown>;
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

function nilSelectorOf(m: unknown): 'namespace' | 'object' | undefined {
  if (!isObject(m)) return undefined;
  if (m.namespaceSelector == null) return 'namespace';
  if (m.objectSelector == null) return 'object';
  return undefined;
}

function named(list: Obj[], field: string): NamedExpression[] {
  return list.map((v) => ({ name: str(v.name), expression: str(v[field]) }));
}

/** The failurePolicy, matchConditions and variables of a policy's spec. */
export function commonSpecOf(spec: Obj): CommonSpec {
  return {
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchConditions: named(objects(spec.matchConditions), 'expression') as MatchCondition[],
    variables: named(objects(spec.variables), 'expression'),
  };
}

function bindingOf(b: KubeObject): Binding {
  const spec = isObject(b.spec) ? b.spec : {};
  const paramRef = isObject(spec.paramRef) ? spec.paramRef : undefined;
  return {
    name: b.metadata.name ?? '',
    policyName: str(spec.policyName),
    ...(paramRef
      ? {
          paramRef: {
            ...(paramRef.name ? { name: str(paramRef.name) } : {}),
            ...(paramRef.namespace ? { namespace: str(paramRef.namespace) } : {}),
            ...(paramRef.selector != null ? { selector: paramRef.selector } : {}),
            ...(paramRef.parameterNotFoundAction
              ? { parameterNotFoundAction: str(paramRef.parameterNotFoundAction) }
              : {}),
          },
        }
      : {}),
    matchResources: matchResourcesOf(spec.matchResources),
    nilSelector: nilSelectorOf(spec.matchResources),
    validationActions: Array.isArray(spec.validationActions)
      ? spec.validationActions.filter((a): a is string => typeof a === 'string')
      : [],
  };
}

/** schema.GroupVersionKind's String(): `example.com/v1, Kind=Config` (`/v1, Kind=ConfigMap`). */
function gvkString(apiVersion: string, kind: string): string {
  const i = apiVersion.indexOf('/');
  const [group, version] =
    i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

function hookOf<S extends CommonSpec>(
  p: KubeObject,
  bindings: Binding[],
  host: WebhookHost,
  specOf: (spec: Obj) => S,
): Hook<S> {
  const spec = isObject(p.spec) ? p.spec : {};
  const hook: Hook<S> = {
    name: p.metadata.name ?? '',
    spec: specOf(spec),
    matchConstraints: matchResourcesOf(spec.matchConstraints),
    nilSelector: nilSelectorOf(spec.matchConstraints),
    bindings,
  };
  if (isObject(spec.paramKind)) {
    const pk = { apiVersion: str(spec.paramKind.apiVersion), kind: str(spec.paramKind.kind) };
    hook.paramKind = pk;
    hook.paramType = host
      .resourceTypes()
      .find((t) => t.apiVersion === pk.apiVersion && t.info.kind === pk.kind);
    if (!hook.paramType)
      hook.configurationError = `failed to find resource referenced by paramKind: '${gvkString(pk.apiVersion, pk.kind)}'`;
  }
  return hook;
}

/** The hooks in force: each bound policy with its bindings, in the order of the policies' names. */
export function policyHooks<S extends CommonSpec>(
  host: WebhookHost,
  kinds: PolicyKinds,
  specOf: (spec: Obj) => S,
): Array<Hook<S>> {
  const byPolicy = new Map<string, Binding[]>();
  for (const b of host.scan(kinds.binding)) {
    const binding = bindingOf(b);
    const list = byPolicy.get(binding.policyName) ?? [];
    list.push(binding);
    byPolicy.set(binding.policyName, list);
  }
  if (!byPolicy.size) return [];
  const hooks: Array<Hook<S>> = [];
  for (const [name, bindings] of [...byPolicy].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const p = host.peek(kinds.policy, { name });
    if (p) hooks.push(hookOf(p, bindings, host, specOf));
  }
  return hooks;
}
