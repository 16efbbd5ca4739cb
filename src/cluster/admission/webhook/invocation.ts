/**
 * Whether a webhook is called for a request, and as which resource (generic/webhook.go
 * ShouldCallHook): its namespaceSelector and objectSelector, then its rules against the request's
 * resource, then — with matchPolicy Equivalent — against the other versions of the same stored
 * resource (the webhook is then sent the object at the version its rule names), then its
 * matchConditions. A selector or namespace error counts only for a webhook whose rules match.
 */
import type { KubeObject } from '../../apimachinery/types';
import type { StatusError } from '../../apimachinery/errors';
import { newForbidden, newInternalError, newNotFound } from '../../apimachinery/errors';
import { isObject } from '../../apimachinery/patch';
import { fromLabelSelector, matchesLabels } from '../../apimachinery/selector';
import type { ResourceType } from '../../registry/registry';
import type { AdmissionAttributes } from '../admission';
import type { Webhook } from './config';
import { evaluateMatchConditions } from './matchconditions';
import { toCel } from '../../apiextensions/celvalidation';
import type { CelMap } from '@bufbuild/cel';
import { authorizerFor } from '../../cel/celauthz';
import type { ReviewInput } from './review';
import { ruleMatches } from './rules';

/** What the dispatchers need of the cluster. */
export interface WebhookHost {
  scan(type: { apiVersion: string; kind: string }, namespace?: string): Iterable<KubeObject>;
  peek(
    type: { apiVersion: string; kind: string },
    key: { namespace?: string; name: string },
  ): KubeObject | undefined;
  resourceTypes(): ResourceType[];
  /** The object as version `apiVersion` of its resource sees it (a CRD's conversion). */
  convertTo(obj: KubeObject, apiVersion: string): KubeObject;
}

export interface Invocation {
  webhook: Webhook;
  /** The resource the webhook is called as (the request's, or an equivalent one). */
  t: ResourceType;
}

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };

function labelsOf(o: KubeObject | undefined): Record<string, string> {
  const l = o?.metadata?.labels;
  return isObject(l) ? (l as Record<string, string>) : {};
}

/** The request's name (a create's object name as sent, empty for generateName). */
export function requestName(a: AdmissionAttributes): string {
  if (a.name !== undefined) return a.name;
  return (a.operation === 'DELETE' ? a.old : a.object)?.metadata.name ?? '';
}

export function requestNamespace(a: AdmissionAttributes): string {
  if (!a.type.info.namespaced) return '';
  return (a.object ?? a.old)?.metadata.namespace ?? '';
}

/** A webhook's or an admission policy's label selectors (unparsed, as the object carries them). */
export interface Selectors {
  namespaceSelector: unknown;
  objectSelector: unknown;
}

/** namespace.Matcher.MatchNamespaceSelector: an error counts only once the rules match. */
export function matchNamespace(
  h: Selectors,
  a: AdmissionAttributes,
  host: WebhookHost,
): boolean | StatusError {
  const ns = requestNamespace(a);
  const isNamespaces = a.type.info.group === '' && a.type.info.plural === 'namespaces';
  if (!ns && !isNamespaces) return true;
  const sel = fromLabelSelector(h.namespaceSelector);
  if (!sel) return newInternalError('invalid namespaceSelector');
  if (!sel.length) return true;
  let labels: Record<string, string>;
  if (isNamespaces && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE'))
    labels = labelsOf(a.object);
  else {
    const name = isNamespaces ? requestName(a) : ns;
    const found = host.peek(NAMESPACE, { name });
    if (!found) return newNotFound({ group: '', resource: 'namespaces' }, name);
    labels = labelsOf(found);
  }
  return matchesLabels(sel, labels);
}

/** object.Matcher.MatchObjectSelector: the new object's labels or the old one's. */
export function matchObject(h: Selectors, a: AdmissionAttributes): boolean | StatusError {
  const sel = fromLabelSelector(h.objectSelector);
  if (!sel) return newInternalError('invalid objectSelector');
  if (!sel.length) return true;
  const obj = a.operation === 'DELETE' ? undefined : a.object;
  return (
    (obj !== undefined && matchesLabels(sel, labelsOf(obj))) ||
    (a.old !== undefined && matchesLabels(sel, labelsOf(a.old)))
  );
}

/** The request as a rule sees it, were it for resource `t` (an equivalent one, or its own). */
export function attrsOf(t: ResourceType, a: AdmissionAttributes) {
  return {
    operation: a.operation,
    group: t.info.group,
    version: t.info.version,
    resource: t.info.plural,
    subresource: a.subresource ?? '',
    namespace: requestNamespace(a),
  };
}

/** The other versions of the stored resource `t` (EquivalentResourceMapper.EquivalentResourcesFor). */
export function equivalentTypes(t: ResourceType, host: WebhookHost): ResourceType[] {
  return host.resourceTypes().filter((o) => o.storageKey === t.storageKey && o !== t);
}

/** ShouldCallHook; a thrown StatusError refuses the request. */
export function shouldCall(
  h: Webhook,
  a: AdmissionAttributes,
  host: WebhookHost,
  review: (inv: Invocation) => ReviewInput,
): Invocation | undefined {
  const ns = matchNamespace(h, a, host);
  if (ns === false) return undefined;
  const obj = matchObject(h, a);
  if (obj === false) return undefined;
  let inv: Invocation | undefined;
  if (h.rules.some((r) => ruleMatches(r, attrsOf(a.type, a)))) inv = { webhook: h, t: a.type };
  if (!inv && h.matchPolicy === 'Equivalent') {
    const equivalents = equivalentTypes(a.type, host);
    outer: for (const r of h.rules)
      for (const t of equivalents)
        if (ruleMatches(r, attrsOf(t, a))) {
          inv = { webhook: h, t };
          break outer;
        }
  }
  if (!inv) return undefined;
  if (ns !== true) throw ns;
  if (obj !== true) throw obj;
  if (h.matchConditions.length) {
    const r = review(inv);
    const result = evaluateMatchConditions(h.matchConditions, h.failurePolicy, {
      object: toCel(r.object, undefined),
      oldObject: toCel(r.oldObject, undefined),
      request: toCel(reviewRequestForCel(r), undefined),
      authorizer: requestAuthorizer(a),
    });
    if ('error' in result) throw newForbidden(a.type.gr, requestName(a), result.error);
    if (!result.matches) return undefined;
  }
  return inv;
}

/** The `authorizer` of admission CEL: checks as the request's user, `requestResource` its resource. */
export function requestAuthorizer(a: AdmissionAttributes): CelMap {
  return authorizerFor(a.session?.request.user.username ?? '', {
    group: a.type.info.group,
    resource: a.type.info.plural,
    subresource: a.subresource ?? '',
    namespace: requestNamespace(a),
    name: requestName(a),
  });
}

/** The `request` variable of a matchCondition: the AdmissionRequest without the objects. */
function reviewRequestForCel(r: ReviewInput): Record<string, unknown> {
  return {
    kind: r.kind,
    resource: r.resource,
    subResource: r.subResource,
    requestKind: r.requestKind,
    requestResource: r.requestResource,
    requestSubResource: r.requestSubResource,
    name: r.name,
    namespace: r.namespace,
    operation: r.operation,
    userInfo: { username: r.user.username, groups: r.user.groups },
    dryRun: r.dryRun,
    options: r.options ?? null,
  };
}
