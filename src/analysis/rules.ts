/**
 * The rule registry: ids, default severities and one-line summaries shared by the server (hover,
 * codeDescription), the CLI (SARIF rule metadata) and the docs (docs/rules/<id>.md).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Severity, SeveritySetting } from './diagnostics';

export interface RuleMeta {
  id: string;
  title: string;
  defaultSeverity: Severity;
  /** what it catches, one sentence */
  summary: string;
  languages: ('go' | 'typescript')[];
}

/**
 * The rule pages (docs/rules/<id>.md) ship inside the VSIX and the npm package, so links point at
 * the local copy: it is always there, matches the installed version, and needs no network.
 * Beside dist/ when bundled; two levels up when run from src/analysis.
 */
export const RULES_DOCS_DIR: string =
  [join(__dirname, '..', 'docs', 'rules'), join(__dirname, '..', '..', 'docs', 'rules')].find((d) =>
    existsSync(d),
  ) ?? join(__dirname, '..', 'docs', 'rules');

/**
 * No rule defaults to error: each finding is code that compiles and runs, and an error is what
 * stops a build. A user who wants one to block sets its severity.
 */
export const RULES: RuleMeta[] = [
  {
    id: 'spec-write',
    title: 'Reconcile writes the spec of the object it reconciles',
    defaultSeverity: 'warning',
    summary:
      'Reconcile changes .Spec of the reconciled object and writes it back, which triggers another reconcile.',
    languages: ['go', 'typescript'],
  },
  {
    id: 'status-error-ignored',
    title: 'Status write error ignored',
    defaultSeverity: 'warning',
    summary: 'The error of Status().Update/Patch is discarded or never checked.',
    languages: ['go', 'typescript'],
  },
  {
    id: 'unscoped-list',
    title: 'List without namespace or selector',
    defaultSeverity: 'warning',
    summary: 'List with no namespace, label or field selector in a reconcile path.',
    languages: ['go', 'typescript'],
  },
  {
    id: 'repeated-status-update',
    title: 'Several status writes on one path',
    defaultSeverity: 'warning',
    summary: 'More than one status write of the same object on one path through Reconcile.',
    languages: ['go'],
  },
  {
    id: 'result-with-error',
    title: 'Result returned together with an error',
    defaultSeverity: 'warning',
    summary:
      'A non-zero Result returned with a non-nil error: controller-runtime ignores the Result.',
    languages: ['go', 'typescript'],
  },
  {
    id: 'notfound-not-ignored',
    title: 'NotFound of the reconciled object returned as an error',
    defaultSeverity: 'warning',
    summary:
      'The Get of the reconciled object returns its NotFound error, so deletions are retried forever.',
    languages: ['go'],
  },
  {
    id: 'update-unfetched',
    title: 'Update of an object that was never read',
    defaultSeverity: 'warning',
    summary: 'Update of an object built locally and never read, so it has no resourceVersion.',
    languages: ['go'],
  },
  {
    id: 'blocking-sleep',
    title: 'Sleeping in Reconcile',
    defaultSeverity: 'warning',
    summary: 'time.Sleep or a blocking wait inside a reconcile path holds a worker.',
    languages: ['go', 'typescript'],
  },
  {
    id: 'observed-generation',
    title: 'Status written without ObservedGeneration',
    defaultSeverity: 'information',
    summary: 'Status is written without setting ObservedGeneration although the type has one.',
    languages: ['go'],
  },
  {
    id: 'missing-owner-ref',
    title: 'Child created without a controller reference',
    defaultSeverity: 'warning',
    summary: 'A child object is created without a controller owner reference.',
    languages: ['go'],
  },
  {
    id: 'forbidden-swallowed',
    title: 'Forbidden or quota error turned into success',
    defaultSeverity: 'warning',
    summary: 'A Forbidden/quota error is turned into success with no requeue.',
    languages: ['go'],
  },
];

export const RULE_IDS = RULES.map((r) => r.id);
const BY_ID = new Map(RULES.map((r) => [r.id, r]));

export function ruleMeta(id: string): RuleMeta | undefined {
  return BY_ID.get(id);
}

export function ruleDocsUrl(id: string): string {
  return pathToFileURL(join(RULES_DOCS_DIR, `${id}.md`)).toString();
}

/** Per-rule severity overrides, as in the `reconcileStudio.diagnostics.severity` setting. */
export type SeverityConfig = Partial<Record<string, SeveritySetting>>;

/** The severity a rule reports at, or null when it is turned off. */
export function effectiveSeverity(id: string, config: SeverityConfig = {}): Severity | null {
  const setting = config[id];
  if (setting === 'off') return null;
  if (
    setting === 'error' ||
    setting === 'warning' ||
    setting === 'information' ||
    setting === 'hint'
  ) {
    return setting;
  }
  return BY_ID.get(id)?.defaultSeverity ?? 'warning';
}
