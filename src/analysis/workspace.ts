/**
 * The server's view of Go and TypeScript sources: open documents (kept in sync with incremental
 * edits, each Go document with a tree-sitter tree edited in place so re-parsing is incremental),
 * plus sibling files of the same package read from disk so helpers in other files are followed.
 * No LSP here: positions in, findings out, which keeps it testable without a client.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  TextDocument,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-textdocument';
import type { Point, Tree } from 'web-tree-sitter';
import { Analyzer, TypeIndex, type SelectionOptions } from './analyzer';
import type { Finding } from './diagnostics';
import { isGenerated, isVendored, languageOf } from './files';
import type { GoFile } from './go/package';
import { GoAnalysisCache } from './go/analyze';
import { GoModule, modulePath } from './go/module';
import { TreeCopier } from './go/tree';
import { LineIndex } from './text';
import { walkFiles } from '../util/walk';

interface OpenDoc {
  path: string;
  doc: TextDocument;
  /** Go only: the last tree, already edit()ed to match `doc` when `stale` */
  tree: Tree | null;
  file: GoFile | null;
  copier: TreeCopier;
  cache: GoAnalysisCache;
}

interface DiskFile {
  mtimeMs: number;
  file: GoFile;
}

/**
 * At most this many sibling files are read per package (tests excluded): far past real operator
 * packages, and said in the log when a package has more, since its helpers past it go unseen.
 */
const MAX_SIBLINGS = 1000;
const MAX_TYPE_FILES = 500;
/** YAML files read per module for CRD scopes: kubebuilder puts a few dozen in config/crd. */
const MAX_CRD_FILES = 2000;

export class Workspace {
  private readonly open = new Map<string, OpenDoc>();
  private readonly disk = new Map<string, DiskFile>();
  private readonly typeIndexes = new Map<string, TypeIndex>();

  constructor(readonly analyzer: Analyzer) {}

  openDocument(path: string, languageId: string, version: number, text: string): void {
    this.close(path);
    this.open.set(path, {
      path,
      doc: TextDocument.create(path, languageId, version, text),
      tree: null,
      file: null,
      copier: new TreeCopier(),
      cache: new GoAnalysisCache(),
    });
    this.invalidateTypes(path);
  }

  /** Applies LSP content changes; for Go, mirrors each change into the tree with Tree.edit. */
  changeDocument(path: string, version: number, changes: TextDocumentContentChangeEvent[]): void {
    const entry = this.open.get(path);
    if (!entry) return;
    for (const change of changes) {
      if (entry.tree && 'range' in change) {
        const startIndex = entry.doc.offsetAt(change.range.start);
        const oldEndIndex = entry.doc.offsetAt(change.range.end);
        entry.tree.edit({
          startIndex,
          oldEndIndex,
          newEndIndex: startIndex + change.text.length,
          startPosition: point(entry.doc, startIndex),
          oldEndPosition: point(entry.doc, oldEndIndex),
          newEndPosition: endPoint(point(entry.doc, startIndex), change.text),
        });
      } else if (entry.tree) {
        entry.tree.delete();
        entry.tree = null;
      }
      entry.doc = TextDocument.update(entry.doc, [change], version);
    }
    entry.file = null;
    this.invalidateTypes(path);
  }

  close(path: string): void {
    const entry = this.open.get(path);
    entry?.tree?.delete();
    this.open.delete(path);
  }

  isOpen(path: string): boolean {
    return this.open.has(path);
  }

  openPaths(): string[] {
    return [...this.open.keys()];
  }

  text(path: string): string | undefined {
    return this.open.get(path)?.doc.getText();
  }

  /** The parsed Go file for an open document, re-parsed incrementally when it changed. */
  goFile(path: string): GoFile | null {
    const entry = this.open.get(path);
    if (!entry) return this.diskFile(path);
    if (entry.file) return entry.file;
    const text = entry.doc.getText();
    const file = this.analyzer.parseGo(path, text, entry.tree, entry.copier);
    entry.tree?.delete();
    entry.tree = file.tree;
    entry.file = file;
    return file;
  }

  /** Findings for one document, with its package's other files as context. */
  analyze(path: string, options: SelectionOptions): Finding[] {
    const lang = languageOf(path);
    const text = this.text(path);
    if (!lang || text === undefined || isVendored(path) || isGenerated(text)) return [];
    if (lang === 'typescript') return this.analyzer.analyzeTypeScript(path, text, options);
    const file = this.goFile(path);
    if (!file) return [];
    const files = [file, ...this.siblings(path)];
    const cache = this.open.get(path)?.cache;
    return this.analyzer.analyzeGo(files, {
      ...options,
      report: new Set([path]),
      types: this.types(path),
      cache,
      module: this.module(path),
    });
  }

  /**
   * The rest of the Go module holding `path`, for calls into its other packages. Made per
   * analysis: its packages are read through the open documents and the parse cache, so what it
   * sees is current, and unchanged files keep their parsed nodes (and the summaries keyed by them).
   */
  private module(path: string): GoModule | undefined {
    const root = moduleRoot(dirname(path));
    const modPath = root ? modulePath(root) : null;
    if (!root || !modPath) return undefined;
    return new GoModule(root, modPath, (dir) => this.dirFiles(dir, null), this.types(path));
  }

  /** The package's files for hover and fixes: this one first. */
  packageFiles(path: string): GoFile[] {
    const file = this.goFile(path);
    return file ? [file, ...this.siblings(path)] : [];
  }

  private siblings(path: string): GoFile[] {
    if (!path.startsWith('/') && !/^[A-Za-z]:/.test(path)) return [];
    return this.dirFiles(dirname(path), path);
  }

  /** The Go files of a folder (open ones as edited), except `skip`; tests and generated left out. */
  private dirFiles(dir: string, skip: string | null): GoFile[] {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => languageOf(n) === 'go');
    } catch {
      return [];
    }
    if (names.length > MAX_SIBLINGS) {
      this.analyzer.log(
        `${dir}: the package has ${names.length} Go files; only the first ${MAX_SIBLINGS} are read${skip ? ` as context for ${skip}` : ''}.`,
      );
      names = names.slice(0, MAX_SIBLINGS);
    }
    const out: GoFile[] = [];
    for (const n of names) {
      const p = join(dir, n);
      if (p === skip) continue;
      const f = this.open.has(p) ? this.goFile(p) : this.diskFile(p);
      if (f && !isGenerated(f.text)) out.push(f);
    }
    return out;
  }

  private diskFile(path: string): GoFile | null {
    try {
      const st = statSync(path);
      const cached = this.disk.get(path);
      if (cached && cached.mtimeMs === st.mtimeMs) return cached.file;
      cached?.file.tree.delete();
      const text = readFileSync(path, 'utf8');
      const file = this.analyzer.parseGo(path, text);
      this.disk.set(path, { mtimeMs: st.mtimeMs, file });
      return file;
    } catch {
      return null;
    }
  }

  /** API types of the Go module holding `path` (GoPackage adds the package's own). */
  private types(path: string): TypeIndex {
    const root = moduleRoot(dirname(path)) ?? dirname(path);
    let index = this.typeIndexes.get(root);
    if (!index) {
      index = new TypeIndex();
      for (const p of typeFiles(root)) {
        const f = this.open.has(p) ? this.goFile(p) : this.diskFile(p);
        if (f) index.addFile(f.root, true);
      }
      for (const p of crdFiles(root)) {
        try {
          index.addCrdYaml(readFileSync(p, 'utf8'));
        } catch {
          // unreadable: it declares nothing
        }
      }
      this.typeIndexes.set(root, index);
    }
    return index;
  }

  /** Drops the module type indexes (rebuilt from disk on next use). */
  forgetTypes(): void {
    this.typeIndexes.clear();
  }

  private invalidateTypes(path: string): void {
    if (path.endsWith('_types.go') || /\.ya?ml$/.test(path)) this.typeIndexes.clear();
  }

  dispose(): void {
    for (const p of [...this.open.keys()]) this.close(p);
    for (const d of this.disk.values()) d.file.tree.delete();
    this.disk.clear();
  }
}

function point(doc: TextDocument, offset: number): Point {
  const p = doc.positionAt(offset);
  return { row: p.line, column: p.character };
}

/** Where `text` ends when inserted at `start`. */
function endPoint(start: Point, text: string): Point {
  const lines = new LineIndex(text);
  const last = lines.position(text.length);
  return last.line === 0
    ? { row: start.row, column: start.column + last.character }
    : { row: start.row + last.line, column: last.character };
}

/** The Go module a directory belongs to: the nearest folder above it with a go.mod. */
export function moduleRoot(dir: string): string | null {
  let d = dir;
  for (;;) {
    if (existsSync(join(d, 'go.mod'))) return d;
    const parent = dirname(d);
    if (parent === d) return null;
    d = parent;
  }
}

/** `*_types.go` under `root`, skipping vendor and hidden directories, bounded. */
function typeFiles(root: string): string[] {
  return walkFiles(root, (_path, e) => e.name.endsWith('_types.go'), {
    enter: (name) => !name.startsWith('.') && name !== 'vendor' && name !== 'node_modules',
    maxDepth: 6,
    limit: MAX_TYPE_FILES,
  });
}

/**
 * YAML files under `root` that may hold CustomResourceDefinitions (their `scope:` says which
 * custom kinds are cluster-scoped), skipping vendor and hidden directories, bounded.
 */
export function crdFiles(root: string): string[] {
  return walkFiles(root, (_path, e) => /\.ya?ml$/.test(e.name), {
    enter: (name) =>
      !name.startsWith('.') && !['vendor', 'node_modules', 'testdata', 'dist'].includes(name),
    maxDepth: 6,
    limit: MAX_CRD_FILES,
  });
}
