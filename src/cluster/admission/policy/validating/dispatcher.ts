/**
 * The ValidatingAdmissionPolicy admission plugin (k8s.io/apiserver
 * admission/plugin/policy/validating dispatcher.go), run after mutation and before the
 * validating webhooks, for every write — served or in-process, as kube-apiserver runs it for
 * every client, its own controllers included. For each bound policy that matches the request,
 * each binding that matches: its params, then the validator per param; a denial goes where the
 * binding's validationActions say — Deny refuses the request, Warn adds a Warning header, Audit an
 * audit annotation. The first Deny refuses with `ValidatingAdmissionPolicy 'p' with binding 'b'
 * denied request: …`, as a Forbidden whose reason and code are the validation's (Invalid, 422, by
 * default). A configuration error (no match constraints, a paramKind not served, a param not
 * found with parameterNotFoundAction Deny) refuses under failurePolicy Fail, is ignored under
 * Ignore. The admission configuration kinds themselves are exempt (no circularity).
 */
import { StatusError, newForbidden } from '../../../apimachinery/errors';
import type { KubeObject } from '../../../apimachinery/types';
import type { ResourceType } from '../../../registry/registry';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission';
import type { WebhookHost } from '../../webhook/invocation';
import { requestAuthorizer, requestNamespace } from '../../webhook/invocation';
import { isExemptConfigurationResource } from '../../webhook/rules';
import { activation, namespaceObject } from '../activation';
import { admissionRequest, refusedName } from '../request';
import { bindingMatches, definitionMatches, requestNamespaceObject } from '../matching';
import { collectParams } from '../params';
import type { Binding, Hook } from '../source';
import { VALIDATING_POLICY, policyHooks } from '../source';
import type { PolicySpec } from './validator';
import { validate, validatingSpecOf } from './validator';

interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

/** maxAuditAnnotationValueLength */
const MAX_ANNOTATION_VALUE = 10 * 1024;

const VALIDATION_FAILURE = 'validation.policy.admission.k8s.io/validation_failure';

/** admission.extractResourceName: the name, else the object's (generated) name, else `Unknown`. */
/** reasonToCode */
function codeOf(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

function refusal(a: AdmissionAttributes, d: Denial): StatusError {
  const message = d.binding
    ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
    : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
  const forbidden = newForbidden(a.type.gr, refusedName(a), message).status;
  const reason = d.reason || 'Invalid';
  return new StatusError({
    ...forbidden,
    reason,
    code: codeOf(reason),
    details: { ...forbidden.details, causes: [...(forbidden.details?.causes ?? []), { message }] },
  });
}

export function validatingAdmissionPolicy(host: WebhookHost): AdmissionPlugin {
  return (a) => {
    if (isExemptConfigurationResource(a.type.info.group, a.type.info.kind)) return;
    const hooks = policyHooks(host, VALIDATING_POLICY, validatingSpecOf);
    if (!hooks.length) return;
    const denied: Denial[] = [];
    const configError = (h: Hook<PolicySpec>, b: Binding | undefined, err: string) => {
      if (h.spec.failurePolicy === 'Ignore') return;
      const message = b
        ? `failed to configure binding: ${err}`
        : `failed to configure policy: ${err}`;
      denied.push({ policy: h.name, ...(b ? { binding: b.name } : {}), message });
    };
    for (const h of hooks) {
      const defined = definitionMatches(h, a, host);
      if ('error' in defined) {
        configError(h, undefined, defined.error);
        continue;
      }
      if (!defined.matches) continue;
      if (h.configurationError) {
        configError(h, undefined, h.configurationError);
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const b of h.bindings) {
        const bound = bindingMatches(b, a, host);
        if ('error' in bound) {
          configError(h, b, bound.error);
          continue;
        }
        if (!bound.matches) continue;
        const collected = collectParams(h, b.paramRef, requestNamespace(a), host);
        if ('error' in collected) {
          configError(h, b, collected.error);
          continue;
        }
        if (!collected.params.length) continue;
        evaluateBinding(a, host, h, b, defined.t, collected.params, denied, annotations);
      }
      for (const [key, values] of annotations)
        if (a.session) a.session.annotations[`${h.name}/${key}`] = values.join(', ');
    }
    if (denied.length) throw refusal(a, denied[0]);
  };
}

/** One binding's validations for each of its params, their verdicts sent where its actions say. */
function evaluateBinding(
  a: AdmissionAttributes,
  host: WebhookHost,
  h: Hook<PolicySpec>,
  b: Binding,
  t: ResourceType,
  params: Array<KubeObject | null>,
  denied: Denial[],
  annotations: Map<string, string[]>,
): void {
  const at = (o: KubeObject | undefined) =>
    o === undefined ? null : o.apiVersion === t.apiVersion ? o : host.convertTo(o, t.apiVersion);
  const ns = requestNamespaceObject(a, host);
  const base = {
    authorizer: requestAuthorizer(a),
    object: a.operation === 'DELETE' ? null : at(a.object),
    oldObject: a.operation === 'CREATE' ? null : at(a.old),
    request: admissionRequest(a, t),
    namespaceObject: ns ? namespaceObject(ns) : null,
    variables: h.spec.variables,
  };
  for (const param of params) {
    const result = validate(h.spec, activation({ ...base, params: param }));
    result.decisions.forEach((d, i) => {
      if (d.action !== 'deny') return;
      for (const action of b.validationActions) {
        if (action === 'Deny')
          denied.push({ policy: h.name, binding: b.name, message: d.message, reason: d.reason });
        else if (action === 'Warn')
          a.session?.warnings.push(
            `Validation failed for ValidatingAdmissionPolicy '${h.name}' with binding '${b.name}': ${d.message}`,
          );
        else if (action === 'Audit' && a.session && !(VALIDATION_FAILURE in a.session.annotations))
          a.session.annotations[VALIDATION_FAILURE] = JSON.stringify([
            {
              message: d.message,
              policy: h.name,
              binding: b.name,
              expressionIndex: i,
              validationActions: b.validationActions,
            },
          ]);
      }
    });
    for (const r of result.auditAnnotations) {
      if (r.action === 'error') denied.push({ policy: h.name, binding: b.name, message: r.error });
      else if (r.action === 'publish') {
        const values = annotations.get(r.key) ?? [];
        const value = r.value.slice(0, MAX_ANNOTATION_VALUE);
        if (!values.includes(value)) values.push(value);
        annotations.set(r.key, values);
      }
    }
  }
}
