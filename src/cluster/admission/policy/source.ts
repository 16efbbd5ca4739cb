/**
 * The ValidatingAdmissionPolicies in force and their bindings, read from the store on each write
 * (generic/policy_source.go's hooks): a policy with no binding is not a hook; a binding names its
 * policy; a policy whose paramKind the cluster does not serve carries a configuration error.
 */
import { isObject } from '../../../apimachinery/patch';
import type { KubeObject } from '../../../apimachinery/types';
import type { ResourceType } from '../../../registry/registry';
import type { MatchCondition } from '../../webhook/config';
import type { WebhookHost } from '../../webhook/invocation';
import type { MatchResources } from '../matching';
import { matchResourcesOf } from '../matching';
import type { NamedExpression } from '../activation';
import type { PolicySpec } from './validator';

export const POLICY = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
};
export const BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
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
  validationActions: string[];
}

export interface Hook {
  name: string;
  spec: PolicySpec;
  matchConstraints?: MatchResources;
  nilSelector?: 'namespace' | 'object';
  paramKind?: { apiVersion: string; kind: string };
  /** The served resource of paramKind, when there is one. */
  paramType?: ResourceType;
  configurationError?: string;
  bindings: Binding[];
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

function nilSelectorOf(m: unknown): 'namespace' | 'object' | undefined {
  if (!isObject(m)) return undefined;
  if (m.namespaceSelector == null) return 'namespace';
  if (m.objectSelector == null) return 'object';
  return undefined;
}

function named(list: Obj[], field: string): NamedExpression[] {
  return list.map((v) => ({ name: str(v.name), expression: str(v[field]) }));
}

function specOf(spec: Obj): PolicySpec {
  return {
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchConditions: named(objects(spec.matchConditions), 'expression') as MatchCondition[],
    validations: objects(spec.validations).map((v) => ({
      expression: str(v.expression),
      ...(typeof v.message === 'string' ? { message: v.message } : {}),
      ...(typeof v.messageExpression === 'string'
        ? { messageExpression: v.messageExpression }
        : {}),
      ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
    })),
    auditAnnotations: objects(spec.auditAnnotations).map((a) => ({
      key: str(a.key),
      valueExpression: str(a.valueExpression),
    })),
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

function hookOf(p: KubeObject, bindings: Binding[], host: WebhookHost): Hook {
  const spec = isObject(p.spec) ? p.spec : {};
  const hook: Hook = {
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
export function policyHooks(host: WebhookHost): Hook[] {
  const byPolicy = new Map<string, Binding[]>();
  for (const b of host.scan(BINDING)) {
    const binding = bindingOf(b);
    const list = byPolicy.get(binding.policyName) ?? [];
    list.push(binding);
    byPolicy.set(binding.policyName, list);
  }
  if (!byPolicy.size) return [];
  const hooks: Hook[] = [];
  for (const [name, bindings] of [...byPolicy].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const p = host.peek(POLICY, { name });
    if (p) hooks.push(hookOf(p, bindings, host));
  }
  return hooks;
}
