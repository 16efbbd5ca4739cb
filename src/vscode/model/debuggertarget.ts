/**
 * Which debugger "Open Reconcile Debugger" opens (and which report "Run Robustness Report" runs): the Go debugger for a Go file, a Go operator
 * already under it, or a workspace whose only reconcilers are Go (a module with a
 * controller-runtime Reconcile, by the Go analysis, and no TypeScript reconciler module);
 * otherwise the TypeScript reconciler's. The workspace is searched only as far as needed.
 */
export type DebuggerTarget = { kind: 'go'; module?: string } | { kind: 'typescript' };

export interface TargetInputs {
  /** The file the command was given (a code lens, the explorer), if any. */
  given?: string;
  goActive: boolean;
  tsRunning: boolean;
  tsModules(): Promise<number>;
  /** Module directories holding a controller-runtime Reconcile. */
  goOperatorModules(): Promise<string[]>;
}

export async function debuggerTarget(i: TargetInputs): Promise<DebuggerTarget> {
  if (i.goActive) return { kind: 'go' };
  if (i.given)
    return i.given.endsWith('.go') ? { kind: 'go', module: i.given } : { kind: 'typescript' };
  if (i.tsRunning || (await i.tsModules()) > 0) return { kind: 'typescript' };
  const go = await i.goOperatorModules();
  if (go.length === 0) return { kind: 'typescript' };
  // Several: Debug Go Operator asks which.
  return { kind: 'go', module: go.length === 1 ? go[0] : undefined };
}
