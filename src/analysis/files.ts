/**
 * Which files are analyzed at all. Generated code (the Go convention: a `// Code generated ...
 * DO NOT EDIT.` line before the package clause) and vendored dependencies are not the user's to
 * fix, so they are skipped by the server and by `lint`.
 */
const GENERATED = /^\/\/ Code generated .* DO NOT EDIT\.$/m;

export function isGenerated(text: string): boolean {
  // The marker must come before the package clause; only look at the header.
  const pkg = text.search(/^package\s/m);
  const header = pkg >= 0 ? text.slice(0, pkg) : text.slice(0, 4096);
  return GENERATED.test(header);
}

export function isVendored(path: string): boolean {
  return /(^|[\\/])vendor[\\/]/.test(path) || /(^|[\\/])node_modules[\\/]/.test(path);
}

export type Language = 'go' | 'typescript';

export function languageOf(path: string): Language | null {
  if (path.endsWith('.go')) return path.endsWith('_test.go') ? null : 'go';
  if (/\.(ts|mts|cts)$/.test(path) && !path.endsWith('.d.ts')) return 'typescript';
  return null;
}
