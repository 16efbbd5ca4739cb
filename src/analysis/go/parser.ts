/**
 * Loads web-tree-sitter and the Go grammar once per process. The wasm files sit next to the bundle
 * (dist/ after scripts/build.mjs) or in node_modules when running from source (tests, tsx), so we
 * look in both, walking up from this module's directory.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Language, Parser, Tree } from 'web-tree-sitter';
// `require`, not `import`: esbuild then picks the package's CommonJS build. Its ESM build reads
// import.meta.url, which is empty in our CommonJS bundles (dist/server.js, dist/cli.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const TreeSitter = require('web-tree-sitter') as typeof import('web-tree-sitter');

/** Finds `file` next to the bundle or under node_modules/`pkg` in this or a parent directory. */
export function locateAsset(file: string, pkg: string, from: string = __dirname): string {
  let dir = from;
  for (;;) {
    for (const candidate of [join(dir, file), join(dir, 'node_modules', pkg, file)]) {
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`cannot find ${file} (looked beside ${from} and in node_modules/${pkg})`);
}

let loading: Promise<Language> | undefined;

/**
 * The object handed to Parser.init: Emscripten fills it in as the wasm module (its exports, e.g.
 * `_ts_tree_cursor_goto_first_child_wasm`). cursor.ts drives the tree cursor through it directly.
 */
const moduleObject: Record<string, unknown> = {};

/** The wasm module once loadGo has run (empty before, and if another caller initialized it). */
export function wasmModule(): Readonly<Record<string, unknown>> {
  return moduleObject;
}

/** The Go language, loaded on first use; every later call shares the same instance. */
export function loadGo(): Promise<Language> {
  loading ??= (async () => {
    const runtime = locateAsset('tree-sitter.wasm', 'web-tree-sitter');
    moduleObject.locateFile = () => runtime;
    await TreeSitter.Parser.init(moduleObject);
    return TreeSitter.Language.load(locateAsset('tree-sitter-go.wasm', 'tree-sitter-go'));
  })();
  return loading;
}

/** A parser for Go. Parsers are cheap but stateful: one per caller that parses incrementally. */
export async function createGoParser(): Promise<Parser> {
  const language = await loadGo();
  const parser = new TreeSitter.Parser();
  parser.setLanguage(language);
  return parser;
}

/** Parses `text`, reusing `old` (already edited to match) when given. */
export function parseGo(parser: Parser, text: string, old?: Tree | null): Tree {
  const tree = parser.parse(text, old ?? null);
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}
