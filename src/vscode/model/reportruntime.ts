/**
 * Which runtime "Run Robustness Report" judges, and how the report names it. A workspace may hold
 * a TypeScript reconciler and a Go operator of the same logic (the sample does): the report
 * follows what the user is on — the file the command was given, else the active editor's file —,
 * then the runtime running now, and asks when the workspace holds both and nothing says which.
 * A file that is neither (a manifest's YAML) says nothing. No vscode import: tested in plain Node.
 */
export type ReportRuntime = 'typescript' | 'go';

/** The runtime a report judged, as the panel says it. */
export const RUNTIME_WORDS: Record<ReportRuntime, string> = {
  go: 'Go operator (its manager, run on the real clock)',
  typescript: 'TypeScript reconciler (the embedded runtime, on the virtual clock)',
};

export interface ReportRuntimeInputs {
  /** The file the command was given (the explorer, a code lens), if any. */
  given?: string;
  /** The active editor's document, if any. */
  active?: { path: string; languageId: string };
  /** The TypeScript reconciler module running now, if one runs. */
  tsRunning?: string;
  /** Run Go Operator or Debug Go Operator has a manager running. */
  goRunning: boolean;
  tsModules(): Promise<number>;
  /** Module directories holding a controller-runtime Reconcile. */
  goOperatorModules(): Promise<string[]>;
}

/**
 * `file`: what picks the module (a Go file or module folder; the TypeScript reconciler module
 * given or running). `from` says what decided, for the log. `ask`: both kinds exist, nothing said.
 */
export type ReportRuntimeChoice =
  | { kind: ReportRuntime; file?: string; from: 'given' | 'active' | 'running' | 'workspace' }
  | { kind: 'ask' };

const TS_LANGUAGES = new Set(['typescript', 'javascript', 'typescriptreact', 'javascriptreact']);

/** The runtime a file belongs to: a Go source, a TypeScript or JavaScript one, or neither. */
export function runtimeOfFile(path: string, languageId?: string): ReportRuntime | undefined {
  if (languageId === 'go' || path.endsWith('.go')) return 'go';
  if ((languageId && TS_LANGUAGES.has(languageId)) || /\.[cm]?[jt]sx?$/.test(path))
    return 'typescript';
  return undefined;
}

export async function reportRuntime(i: ReportRuntimeInputs): Promise<ReportRuntimeChoice> {
  const given = i.given && runtimeOfFile(i.given);
  if (given) return { kind: given, file: i.given, from: 'given' };
  // The active TypeScript file picks its module only when it is one (pickReconcilerModule).
  const active = i.active && runtimeOfFile(i.active.path, i.active.languageId);
  if (active)
    return active === 'go'
      ? { kind: 'go', file: i.active!.path, from: 'active' }
      : { kind: 'typescript', from: 'active' };
  if (i.tsRunning && !i.goRunning)
    return { kind: 'typescript', file: i.tsRunning, from: 'running' };
  if (i.goRunning && !i.tsRunning) return { kind: 'go', from: 'running' };
  if (i.tsRunning && i.goRunning) return { kind: 'ask' };
  const [ts, go] = await Promise.all([i.tsModules(), i.goOperatorModules()]);
  if (ts > 0 && go.length > 0) return { kind: 'ask' };
  if (go.length > 0)
    return { kind: 'go', ...(go.length === 1 ? { file: go[0] } : {}), from: 'workspace' };
  return { kind: 'typescript', from: 'workspace' };
}
