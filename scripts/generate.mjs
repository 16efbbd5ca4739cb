// Brings generated/ up to date: the data generated from the pinned Kubernetes release's own
// definitions (see scripts/kubernetes.mjs). Each output is remade when it is missing, or was made
// for another release or by another version of its generator (a stamp beside it says which).
// Run by the build, the tests and `npm run typecheck`; never edit generated/ by hand.
// Only Node built-ins and the generators here: the bootstrap may run it before node_modules exists.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureDiscovery } from './apigen-discovery.mjs';
import { ensureApiTypes } from './apigen/generate.mjs';
import { kubernetesRelease, root } from './kubernetes.mjs';

/** Each generator: its script (exporting `generate(release)` → JSON-able data) and its output. */
const GENERATORS = [
  { script: 'scripts/apigen-resetfields.mjs', output: 'generated/resetfields.json' },
  { script: 'scripts/apigen-namerules.mjs', output: 'generated/namerules.json' },
  { script: 'scripts/apigen-generation.mjs', output: 'generated/generation.json' },
  { script: 'scripts/apigen-updatepolicy.mjs', output: 'generated/updatepolicy.json' },
  { script: 'scripts/apigen-defaults.mjs', output: 'generated/defaults.json' },
  { script: 'scripts/apigen-printcolumns.mjs', output: 'generated/printcolumns.json' },
  { script: 'scripts/apigen-bootstrap.mjs', output: 'generated/bootstrap.json' },
  { script: 'scripts/apigen-bookmarks.mjs', output: 'generated/bookmarks.json' },
  { script: 'scripts/apigen-internallayout.mjs', output: 'generated/internallayout.json' },
];

/** The release and the generators' own code, Go programs included (they share helpers, so all of it counts). */
function stampOf(release) {
  const hash = createHash('sha256');
  for (const f of readdirSync(join(root, 'scripts')).sort()) {
    if (/^(apigen.*|kubernetes|gotool)\.mjs$/.test(f))
      hash.update(readFileSync(join(root, 'scripts', f)));
  }
  for (const tool of readdirSync(join(root, 'tools')).sort()) {
    hash.update(readFileSync(join(root, 'tools', tool, 'main.go')));
  }
  return `${release} ${hash.digest('hex').slice(0, 16)}`;
}

export async function generate({ force = false } = {}) {
  // The served API's discovery and OpenAPI documents, and the type graph of the release's Go
  // types (a Go program of its own): several outputs each, with stamps of their own.
  ensureDiscovery();
  ensureApiTypes();
  const release = kubernetesRelease();
  const stamp = stampOf(release);
  for (const { script, output } of GENERATORS) {
    const out = join(root, output);
    const stampFile = `${out}.stamp`;
    if (!force && existsSync(out) && existsSync(stampFile)) {
      if (readFileSync(stampFile, 'utf8') === stamp) continue;
    }
    const started = Date.now();
    const { generate: run } = await import(pathToFileURL(join(root, script)).href);
    const data = await run(release);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(data));
    writeFileSync(stampFile, stamp);
    console.error(
      `[generate] ${relative(root, out)} for Kubernetes ${release} (${Date.now() - started} ms)`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await generate({ force: process.argv.includes('--force') });
}
