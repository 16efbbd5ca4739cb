/**
 * The other packages of the Go module a package belongs to, loaded on demand: a call such as
 * `common.UpdateStatus(ctx, c, obj)` whose qualifier's import path lies under go.mod's module path
 * is resolved into that package's source. Who reads the files (the CLI from disk, the server
 * through its open documents and parse cache) is the loader's business.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { GoPackage, type GoFile, type ModuleFuncs, type TypeIndex } from './package';

/** Reads the Go files (not tests, not generated) of one directory; [] when there is none. */
export type PackageLoader = (dir: string) => GoFile[];

/** go.mod's `module` path, or null. */
export function modulePath(root: string): string | null {
  const mod = join(root, 'go.mod');
  if (!existsSync(mod)) return null;
  const m = /^module\s+("?)([^\s"]+)\1\s*$/m.exec(readFileSync(mod, 'utf8'));
  return m ? m[2] : null;
}

export class GoModule implements ModuleFuncs {
  private readonly packages = new Map<string, GoPackage | null>();

  constructor(
    /** the folder holding go.mod */
    readonly root: string,
    /** go.mod's module path */
    readonly path: string,
    private readonly load: PackageLoader,
    private readonly types?: TypeIndex,
  ) {}

  /** The module's package at this import path (null outside the module or without Go files). */
  package(importPath: string): GoPackage | null {
    if (importPath !== this.path && !importPath.startsWith(`${this.path}/`)) return null;
    let pkg = this.packages.get(importPath);
    if (pkg === undefined) {
      const rest = importPath.slice(this.path.length + 1);
      const files = this.load(rest ? join(this.root, ...rest.split('/')) : this.root);
      pkg = files.length ? new GoPackage(files, this.types) : null;
      if (pkg) pkg.module = this;
      this.packages.set(importPath, pkg);
    }
    return pkg;
  }

  /** The import path of a folder of the module (null outside it). */
  importPathOf(dir: string): string | null {
    const rel = relative(this.root, dir);
    if (rel.startsWith('..') || isAbsolute(rel)) return null;
    return rel ? `${this.path}/${rel.split(sep).join('/')}` : this.path;
  }
}
