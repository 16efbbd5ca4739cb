/**
 * The user's Reconcile methods as Delve names them (`<import path>.(*WebAppReconciler).Reconcile`),
 * found by the Go analysis (the same `reconcileRoots` the diagnostics use), so the debugger stops
 * in the user's own code without being told where it is.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { Analyzer } from '../../analysis/analyzer';
import { GoPackage } from '../../analysis/go/package';
import { reconcileRoots } from '../../analysis/go/reconcilers';
import { walkFiles } from '../../util/walk';

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
  for (const [dir, paths] of goPackages(moduleDir)) {
    const files = paths.map((p) => analyzer.parseGo(p, readFileSync(p, 'utf8')));
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

/** The module's package directories (those with non-test Go files), each with those files. */
function goPackages(moduleDir: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const goFiles = walkFiles(
    moduleDir,
    (_path, e) => e.name.endsWith('.go') && !e.name.endsWith('_test.go'),
    { enter: (name) => !name.startsWith('.') && !SKIP.has(name), strict: true },
  );
  for (const f of goFiles) {
    const dir = dirname(f);
    const files = packages.get(dir);
    if (files) files.push(f);
    else packages.set(dir, [f]);
  }
  return packages;
}
