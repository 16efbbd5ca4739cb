/**
 * A binding's params (generic/policy_dispatcher.go CollectParams): none asked for is one nil
 * param; paramRef.name is the object of that name (none when absent); paramRef.selector every
 * object it selects; a namespaced paramKind is read in paramRef.namespace or the request's. No
 * param found is no evaluation at all, unless parameterNotFoundAction is Deny. Errors are the
 * binding's configuration errors, in the upstream words.
 */
import { isObject } from '../../apimachinery/patch';
import { fromLabelSelector, matchesLabels } from '../../apimachinery/selector';
import type { KubeObject } from '../../apimachinery/types';
import type { WebhookHost } from '../webhook/invocation';
import type { CommonSpec, Hook, ParamRef } from './source';

export type Params = { params: Array<KubeObject | null> } | { error: string };

function labelsOf(o: KubeObject): Record<string, string> {
  const l = o.metadata.labels;
  return isObject(l) ? (l as Record<string, string>) : {};
}

export function collectParams(
  hook: Hook<CommonSpec>,
  ref: ParamRef | undefined,
  namespace: string,
  host: WebhookHost,
): Params {
  const kind = hook.paramKind;
  if (!kind || !ref) return { params: [null] };
  const t = hook.paramType;
  if (!t)
    return {
      error: `paramKind kind \`&ParamKind{APIVersion:${kind.apiVersion},Kind:${kind.kind},}\` not known`,
    };
  let ns: string | undefined;
  if (t.info.namespaced) {
    ns = ref.namespace || namespace;
    if (!ns)
      return {
        error:
          'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
      };
  } else if (ref.namespace)
    return { error: 'paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  const type = { apiVersion: t.apiVersion, kind: t.info.kind };
  let params: KubeObject[];
  if (ref.name) {
    if (ref.selector !== undefined)
      return { error: 'paramRef.name and paramRef.selector are mutually exclusive' };
    const found = host.peek(type, { ...(ns ? { namespace: ns } : {}), name: ref.name });
    params = found ? [found] : [];
  } else if (ref.selector !== undefined) {
    const sel = fromLabelSelector(ref.selector);
    if (!sel) return { error: 'invalid paramRef.selector' };
    params = [...host.scan(type, ns)].filter((o) => matchesLabels(sel, labelsOf(o)));
  } else return { error: 'one of name or selector must be provided' };
  if (!params.length && ref.parameterNotFoundAction === 'Deny')
    return { error: 'no params found for policy binding with `Deny` parameterNotFoundAction' };
  // The param as paramKind's version sees it (a CRD's other versions convert).
  return {
    params: params.map((o) =>
      o.apiVersion === t.apiVersion ? o : host.convertTo(o, t.apiVersion),
    ),
  };
}
