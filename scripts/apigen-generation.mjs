// Generates generated/generation.json: the built-in kinds whose objects have a
// metadata.generation. kube-apiserver sets it in each such kind's strategy (PrepareForCreate:
// `pc := obj.(*scheduling.PriorityClass); pc.Generation = 1`), and only there: kinds whose
// strategy does not (ConfigMap, Secret, Namespace…) never get one, and the generic registry bumps
// it on a graceful or finalizer-held deletion only where it is set. This reads those statements
// from the strategies of the pinned release (k8s.io/kubernetes pkg/registry, and the
// apiextensions-apiserver and kube-aggregator modules), resolving the asserted type's package to
// its API group through the package's `const GroupName`.
//
// Which of them an update bumps (not PriorityClass), and which on an annotation change too
// (Deployment), are read from the same files.
//
// Run through scripts/generate.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  downloadModule,
  kubernetesRelease,
  registryModules,
  strategyFiles,
} from './kubernetes.mjs';

/** The import path of each package alias of a Go file (its last element when unnamed). */
export function importsOf(text) {
  const out = new Map();
  const block = /^import \(([\s\S]*?)^\)/m.exec(text)?.[1] ?? '';
  for (const m of block.matchAll(/^\s*(?:(\w+)\s+)?"([^"]+)"/gm)) {
    out.set(m[1] ?? m[2].split('/').at(-1), m[2]);
  }
  return out;
}

/**
 * The types a strategy file's PrepareForCreate functions give a generation of 1, as
 * [package alias, Kind]: the variable assigned `Generation = 1` and the type assertion that
 * declared it.
 */
export function generationKinds(text) {
  const found = [];
  for (const m of text.matchAll(/^func \(\w*\s*\*?\w+\) PrepareForCreate\([^)]*\) \{\n/gm)) {
    const from = m.index + m[0].length;
    const end = text.indexOf('\n}', from);
    const body = text.slice(from, end < 0 ? undefined : end);
    for (const g of body.matchAll(/^\s*(\w+)\.Generation = 1$/gm)) {
      const decl = new RegExp(`\\b${g[1]} := obj\\.\\(\\*(\\w+)\\.(\\w+)\\)`).exec(body);
      if (!decl) throw new Error(`cannot tell the type of ${g[1]} in a PrepareForCreate`);
      found.push([decl[1], decl[2]]);
    }
  }
  return found;
}

/**
 * The strategy.go files of the release's registries (k8s.io/kubernetes, apiextensions-apiserver,
 * kube-aggregator), and how to tell the API group of a type a file names: its package's
 * `const GroupName`.
 */
export function registryStrategies(release = kubernetesRelease()) {
  const dirs = new Map(
    registryModules(release).map(([path, version]) => [path, downloadModule(path, version).Dir]),
  );
  /** An import path's folder, in one of the modules read. */
  const folderOf = (importPath) => {
    for (const [path, dir] of dirs) {
      if (importPath === path || importPath.startsWith(`${path}/`))
        return join(dir, importPath.slice(path.length));
    }
    return undefined;
  };
  const files = [];
  for (const [path, dir] of dirs)
    for (const file of strategyFiles(join(dir, 'pkg', 'registry')))
      files.push({ file, where: `${path}/${relative(dir, file)}` });
  /** The API group of `alias.kind` in a file whose imports are `imports`. */
  const groupOf = (where, imports, alias, kind) => {
    const pkg = imports.get(alias);
    const folder = pkg && folderOf(pkg);
    const register = folder && join(folder, 'register.go');
    if (!register || !existsSync(register))
      throw new Error(`${where}: cannot find the package of ${alias}.${kind}`);
    const group = /const GroupName = "([^"]*)"/.exec(readFileSync(register, 'utf8'))?.[1];
    if (group === undefined) throw new Error(`${where}: ${register} declares no GroupName`);
    return group;
  };
  return { files, groupOf };
}

export function generate(release = kubernetesRelease()) {
  const { files, groupOf } = registryStrategies(release);
  const kinds = new Set();
  const noUpdateBump = new Set();
  const annotationsBump = new Set();
  const labelsBump = new Set();
  for (const { file, where } of files) {
    const text = readFileSync(file, 'utf8');
    const imports = importsOf(text);
    // Whether its updates bump the generation, and on what: every strategy but
    // PriorityClass's compares its spec (`Generation = old.Generation + 1`, or `Generation++` in
    // a helper); Deployment's its annotations too.
    const bumps = [...text.matchAll(/\.Generation(?: = \w+\.Generation \+ 1|\+\+)/g)];
    const onAnnotations = bumps.some((b) =>
      /\.Annotations, \w+\.Annotations\)/.test(text.slice(Math.max(0, b.index - 300), b.index)),
    );
    // EndpointSlice's compares its labels too (`DeepEqual(ogNewMeta.Labels, ogOldMeta.Labels)`).
    const onLabels = bumps.some((b) =>
      /\.Labels, \w+\.Labels\)/.test(text.slice(Math.max(0, b.index - 300), b.index)),
    );
    for (const [alias, kind] of generationKinds(text)) {
      const group = groupOf(where, imports, alias, kind);
      kinds.add(`${group}/${kind}`);
      if (!bumps.length) noUpdateBump.add(`${group}/${kind}`);
      if (onAnnotations) annotationsBump.add(`${group}/${kind}`);
      if (onLabels) labelsBump.add(`${group}/${kind}`);
    }
  }
  return {
    release,
    kinds: [...kinds].sort(),
    noUpdateBump: [...noUpdateBump].sort(),
    annotationsBump: [...annotationsBump].sort(),
    labelsBump: [...labelsBump].sort(),
  };
}
