/**
 * The user's Reconcile methods as Delve names them (`<import path>.(*WebAppReconciler).Reconcile`),
 * found by the Go analysis (the same `reconcileRoots` the diagnostics use), so the debugger stops
 * in the user's own code without being told where it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Analyzer } from '../../analysis/analyzer';
import { GoPackage } from '../../analysis/go/package';
import { reconcileRoots } from '../../analysis/go/reconcilers';

export interface ReconcileSymbol {
  /** Delve's function location spec. */
  name: string;
  file: string;
  /** 1-based line of the declaration. */
  line: number;
}

const SKIP = new Set(['vendor', 'testdata', 'bin', 'node_modules']);

export async function findReconcileSymbols(moduleDir: string): Promise<ReconcileSymbol[]> {
  const mod = /^module\s+(\S+)/m.exec(readFileSync(join(moduleDir, 'go.mod'), 'utf8'))?.[1];
  if (!mod) throw new Error(`${join(moduleDir, 'go.mod')} names no module`);
  const analyzer = await Analyzer.create();
  const out: ReconcileSymbol[] = [];
  for (const dir of packageDirs(moduleDir)) {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go'))
      .map((f) => analyzer.parseGo(join(dir, f), readFileSync(join(dir, f), 'utf8')));
    if (files.length === 0) continue;
    const rel = relative(moduleDir, dir).split(sep).join('/');
    const importPath = rel ? `${mod}/${rel}` : mod;
    for (const { decl } of reconcileRoots(new GoPackage(files))) {
      out.push({
        name: `${importPath}.(*${decl.receiverType}).Reconcile`,
        file: decl.file.path,
        line: decl.file.lines.position(decl.node.startIndex).line + 1,
      });
    }
    for (const f of files) f.tree.delete();
  }
  return out;
}

function* packageDirs(dir: string): Generator<string> {
  yield dir;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && !e.name.startsWith('.') && !SKIP.has(e.name)) {
      yield* packageDirs(join(dir, e.name));
    }
  }
}
