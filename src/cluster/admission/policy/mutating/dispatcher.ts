/**
 * The MutatingAdmissionPolicy admission plugin (k8s.io/apiserver admission/plugin/policy/mutating
 * dispatcher.go and generic/policy_dispatcher.go), first of the mutating webhooks' kind: each
 * bound policy that matches the request, each matching binding and each of its params, is an
 * invocation; its matchConditions decide, then its mutations apply in order to the object at the
 * matched version (`patch.ts`), the result defaulted. A policy with reinvocationPolicy IfNeeded
 * runs again in the chain's second pass when a later plugin changed the object. An error (an
 * expression's, a patch's, a configuration's) refuses under failurePolicy Fail as kube-apiserver
 * words it — `policy 'p' with binding 'b' denied request: …`, a 403 whose reason is Invalid for
 * an expression's or patch's error, Forbidden for a configuration's — and is ignored under
 * Ignore. DELETE has no object to mutate. The admission configuration kinds are exempt.
 */
import { StatusError, newForbidden } from '../../../apimachinery/errors';
import { clone } from '../../../apimachinery/clone';
import { deepEqual, isObject } from '../../../apimachinery/patch';
import type { KubeObject } from '../../../apimachinery/types';
import type { FieldType } from '../../../managedfields/fieldtypes';
import type { ResourceType } from '../../../registry/registry';
import type { AdmissionAttributes, MutatingAdmissionPlugin } from '../../admission';
import { ReinvokeContext, mutatingView, writeBack } from '../../webhook/dispatcher';
import type { WebhookHost } from '../../webhook/invocation';
import { requestAuthorizer, requestNamespace } from '../../webhook/invocation';
import { evaluateMatchConditions } from '../../webhook/matchconditions';
import { isExemptConfigurationResource } from '../../webhook/rules';
import { activation, namespaceObject } from '../activation';
import { bindingMatches, definitionMatches, requestNamespaceObject } from '../matching';
import { collectParams } from '../params';
import { admissionRequest, refusedName } from '../request';
import type { Binding, CommonSpec, Hook } from '../source';
import { MUTATING_POLICY, commonSpecOf, objects, policyHooks, str } from '../source';
import type { Mutation } from './patch';
import { mutate } from './patch';

/** What the plugin needs of the cluster beyond what the webhooks do. */
export interface MutatingPolicyHost extends WebhookHost {
  fieldTypeOf(t: ResourceType): FieldType;
  defaultObject(t: ResourceType, obj: KubeObject): void;
}

interface MutatingSpec extends CommonSpec {
  mutations: Mutation[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

function mutatingSpecOf(spec: Record<string, unknown>): MutatingSpec {
  return {
    ...commonSpecOf(spec),
    mutations: objects(spec.mutations).map((m) => {
      const patchType = str(m.patchType);
      const holder = patchType === 'JSONPatch' ? m.jsonPatch : m.applyConfiguration;
      return { patchType, expression: isObject(holder) ? str(holder.expression) : '' };
    }),
    reinvocationPolicy: spec.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
  };
}

interface Invocation {
  hook: Hook<MutatingSpec>;
  binding: Binding;
  t: ResourceType;
  param: KubeObject | null;
}

interface PolicyError {
  hook: Hook<MutatingSpec>;
  binding?: Binding;
  message: string;
  reason?: string;
}

/** generic.PolicyError's Error() */
function policyErrorText(e: PolicyError): string {
  return e.binding
    ? `policy '${e.hook.name}' with binding '${e.binding.name}' denied request: ${e.message}`
    : `policy "${e.hook.name}" denied request: ${e.message}`;
}

function refusal(a: AdmissionAttributes, errors: PolicyError[]): StatusError {
  // Mutating admission runs before a create's name is generated: the generateName stands in.
  const name = refusedName(a, a.operation === 'CREATE' ? mutatingView(a) : a.object);
  const forbidden = newForbidden(a.type.gr, name, 'admission request denied by policy').status;
  const messages = errors.map(policyErrorText);
  // The Forbidden's message and reason replaced, its code kept (403), one cause per error.
  const err = new StatusError({
    ...forbidden,
    message: messages[0]!,
    ...(errors[0]!.reason ? { reason: errors[0]!.reason } : {}),
    details: { ...forbidden.details, causes: messages.map((message) => ({ message })) },
  });
  return err;
}

/** The invocations a request makes (the generic dispatcher's relevant hooks), and config errors. */
function invocationsFor(
  a: AdmissionAttributes,
  host: WebhookHost,
  errors: PolicyError[],
): Invocation[] {
  const out: Invocation[] = [];
  for (const hook of policyHooks(host, MUTATING_POLICY, mutatingSpecOf)) {
    const defined = definitionMatches(hook, a, host);
    const configError = (message: string, binding?: Binding) =>
      errors.push({
        hook,
        ...(binding ? { binding } : {}),
        message: binding
          ? `failed to configure binding: ${message}`
          : `failed to configure policy: ${message}`,
      });
    if ('error' in defined) {
      configError(defined.error);
      continue;
    }
    if (!defined.matches) continue;
    if (hook.configurationError) {
      configError(hook.configurationError);
      continue;
    }
    for (const binding of hook.bindings) {
      const bound = bindingMatches(binding, a, host);
      if ('error' in bound) {
        configError(bound.error, binding);
        continue;
      }
      if (!bound.matches) continue;
      const collected = collectParams(hook, binding.paramRef, requestNamespace(a), host);
      if ('error' in collected) {
        configError(collected.error, binding);
        continue;
      }
      for (const param of collected.params) out.push({ hook, binding, t: defined.t, param });
    }
  }
  return out;
}

/** keyFor: the policy, the binding and the param an invocation is remembered by. */
function keyOf(inv: Invocation): string {
  const p = inv.param?.metadata;
  return JSON.stringify([inv.hook.name, inv.binding.name, p?.namespace ?? '', p?.name ?? '']);
}

export function mutatingAdmissionPolicy(host: MutatingPolicyHost): MutatingAdmissionPlugin {
  return (a) => {
    if (isExemptConfigurationResource(a.type.info.group, a.type.info.kind)) return;
    const errors: PolicyError[] = [];
    const invocations = invocationsFor(a, host, errors);
    if (invocations.length) dispatchInvocations(a, host, invocations, errors);
    const failing = errors.filter((e) => e.hook.spec.failurePolicy !== 'Ignore');
    if (failing.length) throw refusal(a, failing);
  };
}

function dispatchInvocations(
  a: AdmissionAttributes,
  host: MutatingPolicyHost,
  invocations: Invocation[],
  errors: PolicyError[],
): void {
  const rc = a.reinvocation!;
  let pc = rc.values.get('MutatingAdmissionPolicy') as ReinvokeContext | undefined;
  if (!pc) rc.values.set('MutatingAdmissionPolicy', (pc = new ReinvokeContext()));
  if (rc.isReinvoke && !deepEqual(pc.lastOutput, a.object)) pc.requireReinvokingPreviouslyInvoked();
  const ns = requestNamespaceObject(a, host);
  try {
    // The object as mutation sees it, at the version of the last invocation's match.
    let current: KubeObject | null = a.operation === 'DELETE' ? null : mutatingView(a);
    let dirty = false;
    for (const inv of invocations) {
      const at = (o: KubeObject | null | undefined) =>
        !o ? null : o.apiVersion === inv.t.apiVersion ? o : host.convertTo(o, inv.t.apiVersion);
      current = at(current);
      const bindings = () =>
        activation({
          authorizer: requestAuthorizer(a),
          object: current,
          oldObject: a.operation === 'CREATE' ? null : at(a.old),
          request: admissionRequest(a, inv.t),
          params: inv.param,
          namespaceObject: ns ? namespaceObject(ns) : null,
          variables: inv.hook.spec.variables,
        });
      const spec = inv.hook.spec;
      const matched = evaluateMatchConditions(spec.matchConditions, spec.failurePolicy, bindings());
      if ('error' in matched) {
        errors.push({
          hook: inv.hook,
          binding: inv.binding,
          message: matched.error,
          reason: 'Invalid',
        });
        continue;
      }
      if (!matched.matches) continue;
      const key = keyOf(inv);
      if (rc.isReinvoke && !pc.reinvoke.has(key)) continue;
      const before = current;
      for (const m of spec.mutations) {
        if (!current) continue;
        try {
          const next = mutate(m, current, bindings(), host.fieldTypeOf(inv.t));
          host.defaultObject(inv.t, next);
          current = next;
          dirty = true;
        } catch (err) {
          errors.push({
            hook: inv.hook,
            binding: inv.binding,
            message: err instanceof Error ? err.message : String(err),
            reason: 'Invalid',
          });
        }
      }
      if (!deepEqual(before, current)) {
        pc.requireReinvokingPreviouslyInvoked();
        rc.shouldReinvoke = true;
      }
      if (spec.reinvocationPolicy === 'IfNeeded') pc.previouslyInvoked.add(key);
    }
    if (dirty && current) {
      writeBack(a, clone(current), host);
      pc.requireReinvokingPreviouslyInvoked();
      rc.shouldReinvoke = true;
    }
  } finally {
    pc.lastOutput = clone(a.object);
  }
}
