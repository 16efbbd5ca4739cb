/**
 * The one recursive directory walk (lint's file collection, the analyzer's `*_types.go` search,
 * `--manifests` folders, the Go packages of a module): entries in name order, depth first, with
 * the caller choosing which directories to enter and which entries to take.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

export interface WalkOptions {
  /** Whether to enter the subdirectory `name` (default: every one). */
  enter?(name: string): boolean;
  /** The deepest level entered; `root` is level 0 (default: no bound). */
  maxDepth?: number;
  /** Stop once this many entries are taken. */
  limit?: number;
  /**
   * Follow symbolic links to directories (default: a link is never entered, so a walk cannot
   * loop; `take` still sees it).
   */
  followLinks?: boolean;
  /** Throw when a directory cannot be read or a link not followed (default: pass over it). */
  strict?: boolean;
}

/** The paths below `root` of the non-directory entries `take` accepts. */
export function walkFiles(
  root: string,
  take: (path: string, entry: Dirent) => boolean,
  opts: WalkOptions = {},
): string[] {
  const out: string[] = [];
  const limit = opts.limit ?? Infinity;
  const maxDepth = opts.maxDepth ?? Infinity;
  const walk = (dir: string, depth: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if (opts.strict) throw err;
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (out.length >= limit) return;
      const path = join(dir, e.name);
      if (isDirectory(path, e, opts)) {
        if (depth < maxDepth && (opts.enter?.(e.name) ?? true)) walk(path, depth + 1);
      } else if (take(path, e)) out.push(path);
    }
  };
  walk(root, 0);
  return out;
}

function isDirectory(path: string, e: Dirent, opts: WalkOptions): boolean {
  if (!e.isSymbolicLink() || !opts.followLinks) return e.isDirectory();
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    if (opts.strict) throw err;
    return false;
  }
}
