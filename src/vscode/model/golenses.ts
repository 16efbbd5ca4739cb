/**
 * Where the "Run Go Operator" and "Debug Go Operator" code lenses go in a Go file: over a
 * manager's `func main()` (a `package main` that imports controller-runtime) and over each method
 * with controller-runtime's Reconcile signature. A signature match is all a lens needs, and it
 * shows at once, without waiting for the language server's parse.
 */
/** The lenses over each of those lines, in order: run it, or debug it held in its Reconcile. */
export const GO_OPERATOR_LENSES = [
  { title: 'Run Go Operator', command: 'reconcileStudio.runGoOperator' },
  { title: 'Debug Go Operator', command: 'reconcileStudio.debugGoOperator' },
] as const;

const RECONCILE = /^func \([^)]*\) Reconcile\(\s*\w+ context\.Context,[^)]*\)/gm;
const MAIN = /^func main\(\)/gm;

/** Offsets of the lines that get a lens, in order. */
export function goOperatorLensOffsets(text: string): number[] {
  const out: number[] = [];
  const isManager =
    /^package main\b/m.test(text) && /"sigs\.k8s\.io\/controller-runtime["/]/.test(text);
  for (const re of isManager ? [MAIN, RECONCILE] : [RECONCILE]) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) out.push(m.index);
  }
  return out.sort((a, b) => a - b);
}
