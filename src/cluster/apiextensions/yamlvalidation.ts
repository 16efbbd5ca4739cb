/**
 * A YAML file of custom resources checked as the apiserver checks a server-side apply of each
 * (what the editor's Apply YAML sends), each problem placed on its node: syntax errors; the apply
 * configuration's typed check (structured-merge-diff's `.metadata.foo: field not declared in
 * schema`); the fields the CRD's structural schema prunes, as the apiserver's default
 * fieldValidation (Warn) reports them; then ObjectMeta and the schema's OpenAPI and CEL validation
 * through the same registry strategy a create or update runs, so the messages are the 422's.
 * Documents of kinds the cluster does not serve as custom resources are left alone.
 *
 * Unlike the apiserver's apply, no admission runs: no webhook, policy or quota is consulted on a
 * keystroke (a webhook is a network call, and admission may mutate or refuse for reasons of the
 * cluster's state). What admission would refuse shows when Apply sends the document.
 * The metadata.name and ObjectMeta checks repeat the create path's (`Cluster.create`) in the
 * same order: a change to one belongs in the other.
 */
import { parseAllDocuments, type Document } from 'yaml';
import type { Cluster } from '../cluster';
import { clone } from '../apimachinery/clone';
import { fieldRequired, StatusError, type FieldError } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import {
  problemsOfStatus,
  rangeOfError,
  rangeOfField,
  syntaxProblems,
  type YamlProblem,
} from '../apimachinery/yamlfields';
import { checkAppliedTyped } from '../endpoints/decode';
import { strategyFor, validateObjectMeta } from '../registry/strategy';

export type { YamlProblem } from '../apimachinery/yamlfields';

/** What the validation reads of the cluster: the served kinds, and the stored object (for CEL's oldSelf). */
export type ServedCluster = Pick<Cluster, 'resourceFor' | 'get'>;

export interface YamlValidation {
  problems: YamlProblem[];
  /** Whether some document is a custom resource the cluster serves. */
  servedKinds: boolean;
}

export function validateResourceYaml(text: string, cluster: ServedCluster): YamlValidation {
  const problems: YamlProblem[] = [];
  let servedKinds = false;
  for (const doc of parseAllDocuments(text)) {
    problems.push(...syntaxProblems(doc));
    if (doc.errors.length) continue;
    const found = validateDocument(doc, text, cluster);
    if (!found) continue;
    servedKinds = true;
    problems.push(...found);
  }
  return { problems, servedKinds };
}

/** The document's problems, or undefined when it is no custom resource the cluster serves. */
function validateDocument(
  doc: Document,
  text: string,
  cluster: ServedCluster,
): YamlProblem[] | undefined {
  const obj: unknown = doc.toJS();
  if (!isObject(obj) || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string')
    return undefined;
  const t = cluster.resourceFor({ apiVersion: obj.apiVersion, kind: obj.kind });
  if (!t?.crd) return undefined;
  // The apply handler's typed conversion comes first and stops the request (a 500 with the path
  // in its message).
  try {
    checkAppliedTyped(t, clone(obj));
  } catch (err) {
    if (err instanceof StatusError) return problemsOfStatus(doc, text, err.status);
    throw err;
  }
  const copy = clone(obj) as KubeObject;
  if (!isObject(copy.metadata)) copy.metadata = {};
  // With a status subresource, an apply to the main resource ignores the status it is sent.
  if (t.statusSubresource) delete copy.status;
  const st = strategyFor(t);
  const problems: YamlProblem[] = (st.defaults?.(copy) ?? []).map((path) => ({
    path,
    message: `unknown field "${path}"`,
    severity: 'warning',
    range: rangeOfField(doc, path, text, 'key'),
  }));
  const md = copy.metadata;
  const errs: FieldError[] = [];
  if (!md.name && !md.generateName)
    errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  errs.push(...validateObjectMeta(copy, st.nameRule, false));
  errs.push(...(st.validate?.(copy, storedObject(cluster, copy)) ?? []));
  for (const e of errs)
    problems.push({
      path: e.field,
      message: e.field ? `${e.field}: ${e.message}` : e.message,
      // CEL's "some validation rules were not checked" follows from the errors beside it.
      severity: e.field === '<nil>' ? 'warning' : 'error',
      range: rangeOfError(doc, e.field, e.message, text),
    });
  return problems;
}

/** The object as stored, at the document's version: an update's old object. */
function storedObject(cluster: ServedCluster, obj: KubeObject): KubeObject | undefined {
  if (!obj.metadata.name) return undefined;
  try {
    return cluster.get(obj, { namespace: obj.metadata.namespace, name: obj.metadata.name });
  } catch {
    return undefined;
  }
}
