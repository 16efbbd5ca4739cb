/**
 * Apply YAML to Cluster without the editor: every document of a YAML text applied to a
 * ResourceSource, and what the cluster refused placed on the lines of the document it came from
 * (the Status's causes on their fields), so the editor can show them where the user typed them.
 */
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../cluster/apimachinery/types';
import {
  problemsOfStatus,
  statusOfError,
  syntaxProblems,
  type YamlProblem,
} from '../../cluster/apimachinery/yamlfields';
import type { ResourceSource } from './source';

export interface Refusal {
  /** `WebApp default/shop`, as the document names it. */
  object: string;
  /** The Status's message, whole. */
  message: string;
  problems: YamlProblem[];
}

export interface ApplyOutcome {
  applied: string[];
  refused: Refusal[];
  /** Syntax errors: when there are any, nothing was sent. */
  syntax: YamlProblem[];
}

/**
 * Applies each document in order, as `kubectl apply -f` does, going on past one the cluster
 * refuses. A text with a syntax error anywhere sends nothing: applying the documents before it
 * would leave the file half applied. Errors that are no Status (no connection, a read-only
 * context) are thrown.
 */
export async function applyYamlText(source: ResourceSource, text: string): Promise<ApplyOutcome> {
  const docs = parseAllDocuments(text);
  const syntax = docs.flatMap(syntaxProblems);
  const outcome: ApplyOutcome = { applied: [], refused: [], syntax };
  if (syntax.length) return outcome;
  for (const doc of docs) {
    const obj = doc.toJS() as KubeObject | null;
    if (!obj) continue;
    try {
      outcome.applied.push(nameOf(await source.apply(obj)));
    } catch (err) {
      const status = statusOfError(err);
      if (!status) throw err;
      outcome.refused.push({
        object: nameOf(obj),
        message: status.message,
        problems: problemsOfStatus(doc, text, status),
      });
    }
  }
  return outcome;
}

function nameOf(obj: KubeObject): string {
  const md = (obj.metadata ?? {}) as KubeObject['metadata'];
  return `${String(obj.kind)} ${md.namespace ? `${md.namespace}/` : ''}${String(md.name ?? '')}`;
}
