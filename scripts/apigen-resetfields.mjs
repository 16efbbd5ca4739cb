// Generates generated/resetfields.json: for every built-in kind, the fields each of its strategies
// resets — what kube-apiserver puts back from the stored object before an update through the main
// resource or a subresource keeps the rest (a status write to a Deployment keeps a new annotation
// but not a new label; one to a Pod drops a new ownerReferences list). Upstream declares them in
// each strategy's GetResetFields (k8s.io/kubernetes pkg/registry/<group>/<kind>/strategy.go, and
// the apiextensions-apiserver and kube-aggregator modules for theirs); this reads those
// declarations from the modules of the pinned release.
//
// A declaration is a map literal of fieldpath sets: `"apps/v1": fieldpath.NewSet(
// fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata", "labels"))`. Reading the
// source text (not compiling the registry packages) keeps a fresh clone's build to a download:
// compiling them is most of a kube-apiserver build. A declaration this reader cannot follow fails
// the build by name rather than being skipped.
//
// Run through scripts/generate.mjs.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  downloadModule,
  kubernetesRelease,
  registryModules,
  strategyFiles,
} from './kubernetes.mjs';

/** The body of the function whose header ends at `from`: up to the `}` that closes it at column 0. */
function bodyAfter(text, from) {
  const end = text.indexOf('\n}', from);
  return text.slice(from, end < 0 ? undefined : end);
}

/** Which subresource a strategy type serves, from its Go name (fooStatusStrategy → status). */
export function subresourceOf(receiver) {
  if (/status/i.test(receiver)) return 'status';
  if (/approval/i.test(receiver)) return 'approval';
  return '';
}

/** The text inside the parentheses that open at `open` (balanced, strings are plain here). */
function inParens(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error('unbalanced parentheses');
}

/** The paths of a list of `fieldpath.MakePathOrDie("a", "b")`; anything else there is an error. */
function pathsOf(list, where) {
  const code = list.replace(/\/\/[^\n]*/g, ''); // comments say why, they are not paths
  const stray = code.replace(/fieldpath\.MakePathOrDie\([^)]*\),?/g, '').trim();
  if (stray) throw new Error(`${where}: a reset path this generator cannot read: ${stray}`);
  return [...code.matchAll(/fieldpath\.MakePathOrDie\(([^)]*)\)/g)].map((p) =>
    [...p[1].matchAll(/"([^"]*)"/g)].map((q) => q[1]),
  );
}

/**
 * The reset-field declarations of one strategy.go: [{ subresource, apiVersion, paths }], and the
 * kind the file's strategies are for (its `obj.(*pkg.Kind)` type assertions). A path added under a
 * feature gate (`if utilfeature.DefaultFeatureGate.Enabled(features.X) { fields["g/v"].Insert(…) }`)
 * counts when `gateOn(X)` says the gate is on by default in the release.
 */
export function parseStrategyFile(text, where, gateOn = () => false) {
  const kinds = new Set([...text.matchAll(/\bobj\.\(\*\w+\.(\w+)\)/g)].map((m) => m[1]));
  const found = [];
  const header =
    /^func \(\*?(\w+)\) GetResetFields\(\) map\[fieldpath\.APIVersion\]\*fieldpath\.Set \{/gm;
  for (const m of text.matchAll(header)) {
    const body = bodyAfter(text, m.index + m[0].length);
    const subresource = subresourceOf(m[1]);
    const here = `${where}: ${m[1]}.GetResetFields`;
    const byVersion = new Map();
    for (const set of body.matchAll(/"([^"]+)":\s*fieldpath\.NewSet\(/g)) {
      byVersion.set(set[1], pathsOf(inParens(body, set.index + set[0].length - 1), here));
    }
    for (const ins of body.matchAll(/\w+\["([^"]+)"\]\.Insert\(/g)) {
      const gates = [...body.slice(0, ins.index).matchAll(/Enabled\(features\.(\w+)\)/g)];
      const gate = gates.at(-1)?.[1];
      if (!gate) throw new Error(`${here}: an Insert outside a feature gate`);
      if (!gateOn(gate)) continue;
      const paths = pathsOf(inParens(body, ins.index + ins[0].length - 1), here);
      const declared = byVersion.get(ins[1]);
      if (declared) declared.push(...paths);
      else byVersion.set(ins[1], paths);
    }
    if (byVersion.size === 0) throw new Error(`${here} declares no set this generator can read`);
    for (const [apiVersion, paths] of byVersion) found.push({ subresource, apiVersion, paths });
  }
  return { kinds: [...kinds], found };
}

/**
 * Whether a feature gate is on by default at the release: the last of its versioned specs in
 * pkg/features/kube_features.go whose version is not newer than the release.
 */
export function featureDefaults(text, release) {
  const [, minor] = release.split('.').map(Number);
  const on = new Map();
  for (const m of text.matchAll(/^\t(\w+): \{\n((?:\t\t\{Version:[^\n]*\n)+)\t\},/gm)) {
    let value = false;
    for (const v of m[2].matchAll(/MustParse\("1\.(\d+)"\), Default: (true|false)/g)) {
      if (Number(v[1]) <= minor) value = v[2] === 'true';
    }
    on.set(m[1], value);
  }
  return on;
}

export function generate(release = kubernetesRelease()) {
  /** "group/Kind" → { subresource ("" for the main resource) → { apiVersion → paths } } */
  const out = {};
  const modules = registryModules(release).map(([path, version]) => [
    path,
    version,
    downloadModule(path, version).Dir,
  ]);
  const features = featureDefaults(
    readFileSync(join(modules[0][2], 'pkg', 'features', 'kube_features.go'), 'utf8'),
    release,
  );
  const gateOn = (gate) => {
    if (!features.has(gate)) throw new Error(`feature gate ${gate} is not in kube_features.go`);
    return features.get(gate);
  };
  for (const [path, version, moduleDir] of modules) {
    const dir = join(moduleDir, 'pkg', 'registry');
    for (const file of strategyFiles(dir)) {
      const where = `${path}@${version}/${relative(moduleDir, file)}`;
      const { kinds, found } = parseStrategyFile(readFileSync(file, 'utf8'), where, gateOn);
      if (found.length === 0) continue;
      if (kinds.length !== 1) {
        throw new Error(
          `${where}: expected one kind in its strategies, found ${kinds.join(', ') || 'none'}`,
        );
      }
      for (const { subresource, apiVersion, paths } of found) {
        const group = apiVersion.includes('/')
          ? apiVersion.slice(0, apiVersion.lastIndexOf('/'))
          : '';
        const byKind = (out[`${group}/${kinds[0]}`] ??= {});
        (byKind[subresource] ??= {})[apiVersion] = paths;
      }
    }
  }
  return { release, resetFields: out };
}
