/**
 * The webhooks of the stored Mutating- and ValidatingWebhookConfigurations, as the apiserver's
 * configuration managers hand them to the dispatchers: configurations sorted by name (webhooks
 * keep their order within one), each webhook with admissionregistration/v1's defaults filled in
 * (failurePolicy Fail, matchPolicy Equivalent, empty selectors, timeoutSeconds 10,
 * reinvocationPolicy Never, a rule's scope `*`, a service port 443), since the fake does not yet
 * default built-in kinds when they are written.
 */
import type { KubeObject, TypeRef } from '../../apimachinery/types';
import { isObject } from '../../apimachinery/patch';
import type { WebhookClientConfig } from './client';

export interface Rule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Webhook {
  /** `configuration/webhook/index`: the reinvocation context's UID of a webhook. */
  uid: string;
  configurationName: string;
  name: string;
  clientConfig: WebhookClientConfig;
  rules: Rule[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Equivalent' | 'Exact';
  namespaceSelector: unknown;
  objectSelector: unknown;
  sideEffects?: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
  matchConditions: MatchCondition[];
  mutating: boolean;
}

export const MUTATING: TypeRef = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
};
export const VALIDATING: TypeRef = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
};

/** The webhooks of the given configurations, in the order the dispatcher calls them. */
export function webhooksOf(configurations: Iterable<KubeObject>, mutating: boolean): Webhook[] {
  const sorted = [...configurations].sort((a, b) =>
    (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1,
  );
  const out: Webhook[] = [];
  for (const c of sorted) {
    const hooks = (c as { webhooks?: unknown }).webhooks;
    if (!Array.isArray(hooks)) continue;
    hooks.forEach((h, i) => {
      if (isObject(h)) out.push(defaulted(c.metadata.name ?? '', h, i, mutating));
    });
  }
  return out;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function defaulted(
  config: string,
  h: Record<string, unknown>,
  i: number,
  mutating: boolean,
): Webhook {
  const name = typeof h.name === 'string' ? h.name : '';
  const cc = isObject(h.clientConfig) ? h.clientConfig : {};
  const svc = isObject(cc.service) ? cc.service : undefined;
  return {
    uid: `${config}/${name}/${i}`,
    configurationName: config,
    name,
    clientConfig: {
      ...(typeof cc.url === 'string' ? { url: cc.url } : {}),
      ...(typeof cc.caBundle === 'string' ? { caBundle: cc.caBundle } : {}),
      ...(svc
        ? {
            service: {
              namespace: String(svc.namespace ?? ''),
              name: String(svc.name ?? ''),
              ...(typeof svc.path === 'string' ? { path: svc.path } : {}),
              port: typeof svc.port === 'number' ? svc.port : 443,
            },
          }
        : {}),
    },
    rules: (Array.isArray(h.rules) ? h.rules : []).filter(isObject).map((r) => ({
      operations: strings(r.operations),
      apiGroups: strings(r.apiGroups),
      apiVersions: strings(r.apiVersions),
      resources: strings(r.resources),
      scope: typeof r.scope === 'string' ? r.scope : '*',
    })),
    failurePolicy: h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: h.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    namespaceSelector: h.namespaceSelector ?? {},
    objectSelector: h.objectSelector ?? {},
    ...(typeof h.sideEffects === 'string' ? { sideEffects: h.sideEffects } : {}),
    timeoutSeconds: typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10,
    admissionReviewVersions: strings(h.admissionReviewVersions),
    reinvocationPolicy: h.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
    matchConditions: (Array.isArray(h.matchConditions) ? h.matchConditions : [])
      .filter(isObject)
      .map((m) => ({ name: String(m.name ?? ''), expression: String(m.expression ?? '') })),
    mutating,
  };
}
