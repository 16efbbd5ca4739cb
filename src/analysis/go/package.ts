/**
 * One Go package as the analyzer sees it: its parsed files, plus indexes of the functions, methods
 * and struct types they declare, so a rule can follow `r.helper(...)` into a sibling file and ask
 * whether a status type has an `ObservedGeneration` field.
 */
import type { Tree } from 'web-tree-sitter';
import type { SNode } from './tree';
import { LineIndex } from '../text';
import { crdClusterScopedKinds, markedClusterScoped } from './scope';
import { descendants, field, named, typeName, type Node } from './syntax';

export interface GoFile {
  path: string;
  text: string;
  /** the tree-sitter tree (kept for incremental parsing; free it with tree.delete()) */
  tree: Tree;
  /** the JS copy the rules read */
  root: SNode;
  lines: LineIndex;
}

export interface StructInfo {
  /** the declaration's source text: what a cached result compares to know it still holds */
  text: string;
  /** field name → the type's source text */
  fields: Map<string, string>;
  /** embedded types' source text, e.g. `client.Client` */
  embedded: string[];
}

export interface FuncDecl {
  file: GoFile;
  node: Node;
  name: string;
  /** receiver type's bare name for methods, null for plain functions */
  receiverType: string | null;
}

/** Type declarations are looked up by bare name across every indexed file (API types live apart). */
export class TypeIndex {
  private readonly structs = new Map<string, StructInfo>();
  /** names that come from API type files (`*_types.go`): other files do not replace them */
  private readonly fromApi = new Set<string>();
  /** custom kinds (and their List types) the user's markers or CRDs declare cluster-scoped */
  private readonly clusterScoped = new Set<string>();

  /**
   * Indexes a file's struct types. `api` marks a `*_types.go` file: names are bare, so when two
   * packages declare the same name the API type wins over, say, a controller's local struct.
   */
  addFile(root: SNode, api = false): void {
    for (const name of markedClusterScoped(root)) this.clusterScoped.add(name);
    for (const spec of descendants(root, 'type_spec')) {
      const name = field(spec, 'name')?.text;
      const type = field(spec, 'type');
      if (!name || !type || type.type !== 'struct_type') continue;
      if (!api && this.fromApi.has(name)) continue;
      if (api) this.fromApi.add(name);
      this.structs.set(name, readStruct(type, spec.text));
    }
  }

  /** Reads a YAML file's cluster-scoped CustomResourceDefinitions. */
  addCrdYaml(text: string): void {
    for (const kind of crdClusterScopedKinds(text)) this.clusterScoped.add(kind);
  }

  merge(other: TypeIndex): void {
    for (const [k, v] of other.structs) this.structs.set(k, v);
    for (const k of other.fromApi) this.fromApi.add(k);
    for (const k of other.clusterScoped) this.clusterScoped.add(k);
  }

  /** Is this custom kind (or List type) declared cluster-scoped by the user? */
  isClusterScoped(name: string): boolean {
    return this.clusterScoped.has(name);
  }

  struct(name: string | null): StructInfo | undefined {
    return name ? this.structs.get(name) : undefined;
  }

  /**
   * Is `name` embedded in a spec type (`type RestoreSpec struct { RestoreSource }`)? Then its
   * methods are the spec's too (`restore.Spec.SetDefaultsWithBackup(b)` is RestoreSource's).
   */
  embeddedInSpec(name: string | null): boolean {
    if (!name) return false;
    for (const [k, s] of this.structs)
      if (/^[A-Z]\w*Spec$/.test(k) && s.embedded.some((e) => e.replace(/^\*/, '') === name))
        return true;
    return false;
  }
}

function readStruct(type: Node, text: string): StructInfo {
  const info: StructInfo = { text, fields: new Map(), embedded: [] };
  for (const decl of descendants(type, 'field_declaration')) {
    // Nested struct literals also hold field_declarations; keep only this struct's own.
    if (decl.parent?.parent?.id !== type.id) continue;
    const names = named(decl).filter((n) => n.type === 'field_identifier');
    const t = field(decl, 'type');
    if (!t) continue;
    if (names.length === 0) info.embedded.push(t.text);
    for (const n of names) info.fields.set(n.text, t.text);
  }
  return info;
}

/** What a package asks of the rest of its module: its packages, by import path. */
export interface ModuleFuncs {
  readonly root: string;
  readonly path: string;
  package(importPath: string): GoPackage | null;
  importPathOf(dir: string): string | null;
}

export class GoPackage {
  readonly functions = new Map<string, FuncDecl>();
  readonly methods = new Map<string, FuncDecl>();
  /** the package's own interface types: name → its method names */
  readonly interfaces = new Map<string, string[]>();
  readonly types: TypeIndex;

  constructor(
    readonly files: GoFile[],
    types?: TypeIndex,
  ) {
    // The package's own types plus any given from elsewhere (API types of the module).
    this.types = new TypeIndex();
    if (types) this.types.merge(types);
    for (const file of files) {
      this.types.addFile(file.root, file.path.endsWith('_types.go'));
      for (const spec of descendants(file.root, 'type_spec')) {
        const name = field(spec, 'name')?.text;
        const type = field(spec, 'type');
        if (!name || type?.type !== 'interface_type') continue;
        const methods = named(type)
          .filter((m) => m.type === 'method_elem' || m.type === 'method_spec')
          .map((m) => field(m, 'name')?.text ?? '');
        this.interfaces.set(name, methods);
      }
      for (const decl of named(file.root)) {
        const name = field(decl, 'name')?.text;
        if (!name) continue;
        if (decl.type === 'function_declaration') {
          this.functions.set(name, { file, node: decl, name, receiverType: null });
        } else if (decl.type === 'method_declaration') {
          const recv = receiverOf(decl);
          if (recv)
            this.methods.set(`${recv.type}.${name}`, {
              file,
              node: decl,
              name,
              receiverType: recv.type,
            });
        }
      }
    }
  }

  /** the rest of the Go module, for calls into its other packages (module.ts's GoModule) */
  module: ModuleFuncs | null = null;

  /**
   * When set, every lookup below is written down with its answer, so a cached analysis of a
   * reconciler can later check that the package still answers the same way (see analyze.ts).
   */
  recorder: Map<string, string> | null = null;

  /**
   * A method of a type of this package, or one promoted from a struct it embeds
   * (`type DragonflyReconciler struct { Reconciler }` has Reconciler's methods).
   */
  promoted(receiverType: string, name: string, depth = 0): FuncDecl | undefined {
    const d = this.methods.get(`${receiverType}.${name}`);
    if (d || depth > 3) return d;
    for (const e of this.types.struct(receiverType)?.embedded ?? []) {
      const bare = /^\*?(\w+)$/.exec(e)?.[1];
      const found = bare ? this.promoted(bare, name, depth + 1) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  method(receiverType: string, name: string): FuncDecl | undefined {
    const d = this.promoted(receiverType, name);
    this.recorder?.set(`m:${receiverType}.${name}`, d ? String(d.node.id) : '');
    return d;
  }

  /**
   * `step.reconcile(...)` where step is of an interface type this package declares: the methods
   * of that name on the package's types that have every method of the interface. Without a type
   * checker this is all a call through the interface may reach here (a sub-reconciler list).
   */
  implementations(iface: string, name: string): FuncDecl[] {
    const methods = this.interfaces.get(iface);
    const out: FuncDecl[] = [];
    if (methods?.includes(name)) {
      for (const d of this.methods.values()) {
        if (d.name !== name || !d.receiverType) continue;
        if (methods.every((m) => this.promoted(d.receiverType!, m))) out.push(d);
      }
    }
    this.recorder?.set(`i:${iface}.${name}`, out.map((d) => d.node.id).join(','));
    return out;
  }

  private tables: { byKey: Map<string, FuncDecl[]>; byType: Map<string, FuncDecl[]> } | null = null;

  /**
   * Function values held in tables of this package: `{version: v, upgrade: upgrade0_1_0}` (by
   * the key `upgrade`), `[]stepFunc{r.reconcileStorage, r.reconcileSource}` (by the element type
   * `stepFunc`), `map[string]T{...}` likewise. A call through such a value (`u.upgrade(ctx, t)`,
   * `step(ctx, obj)`) may reach each of them. Values are the package's functions and method
   * values (`r.reconcileStatus`: the methods of that name).
   */
  funcValues(by: 'key' | 'type', name: string): FuncDecl[] {
    if (!this.tables) {
      const byKey = new Map<string, FuncDecl[]>();
      const byType = new Map<string, FuncDecl[]>();
      const add = (m: Map<string, FuncDecl[]>, k: string, d: FuncDecl): void => {
        const list = m.get(k) ?? [];
        if (!list.includes(d)) list.push(d);
        m.set(k, list);
      };
      const valueOf = (el: Node): Node | null => {
        const v = el.type === 'keyed_element' ? named(el)[1] : el;
        return v?.type === 'literal_element' ? (named(v)[0] ?? null) : (v ?? null);
      };
      for (const file of this.files) {
        // `key: fn` in any literal, its type written or elided (`[]T{{version: v, up: f}}`).
        for (const kv of descendants(file.root, 'keyed_element')) {
          const key = named(kv)[0]?.text;
          if (key) for (const d of this.valueFuncs(file, valueOf(kv))) add(byKey, key, d);
        }
        // `[]stepFunc{a, r.b}`, `map[string]stepFunc{...}`: by the element type.
        for (const lit of descendants(file.root, 'composite_literal')) {
          const type = field(lit, 'type');
          const elem =
            type?.type === 'slice_type' || type?.type === 'array_type'
              ? field(type, 'element')
              : type?.type === 'map_type'
                ? field(type, 'value')
                : null;
          if (elem?.type !== 'type_identifier') continue;
          for (const el of named(field(lit, 'body')))
            for (const d of this.valueFuncs(file, valueOf(el))) add(byType, elem.text, d);
        }
      }
      this.tables = { byKey, byType };
    }
    const out = (by === 'key' ? this.tables.byKey : this.tables.byType).get(name) ?? [];
    this.recorder?.set(`t:${by}.${name}`, out.map((d) => d.node.id).join(','));
    return out;
  }

  /** Does the package hold any `[]T{fn, ...}` table of function values? */
  hasTypedFuncTables(): boolean {
    this.funcValues('type', '');
    return this.tables!.byType.size > 0;
  }

  /** The functions a value names: `upgrade0_1_0`, or `r.reconcileStatus` (methods of that name). */
  private valueFuncs(file: GoFile, value: Node | null): FuncDecl[] {
    if (value?.type === 'identifier') {
      const f = this.functions.get(value.text);
      return f ? [f] : [];
    }
    if (value?.type !== 'selector_expression') return [];
    const op = field(value, 'operand');
    const name = field(value, 'field')?.text;
    if (op?.type !== 'identifier' || !name || importPathOf(file, op.text)) return [];
    return [...this.methods.values()].filter((d) => d.name === name);
  }

  func(name: string): FuncDecl | undefined {
    const d = this.functions.get(name);
    this.recorder?.set(`f:${name}`, d ? String(d.node.id) : '');
    return d;
  }

  struct(name: string | null): StructInfo | undefined {
    const s = this.types.struct(name);
    if (name) this.recorder?.set(`s:${name}`, s?.text ?? '');
    return s;
  }

  /** Is the kind declared cluster-scoped by a marker or a CRD (see scope.ts)? */
  clusterScoped(kind: string): boolean {
    const yes = this.types.isClusterScoped(kind);
    this.recorder?.set(`c:${kind}`, yes ? 'y' : '');
    return yes;
  }

  /**
   * Does the package still give these answers? `summary` answers the `u:` keys: the summary of
   * the function a call resolved to (summary.ts).
   */
  answersLike(recorded: Map<string, string>, summary: (key: string) => string): boolean {
    const saved = this.recorder;
    this.recorder = null;
    try {
      for (const [key, answer] of recorded) {
        const kind = key[0];
        const name = key.slice(2);
        let now: string;
        if (kind === 's') now = this.types.struct(name)?.text ?? '';
        else if (kind === 'c') now = this.types.isClusterScoped(name) ? 'y' : '';
        else if (kind === 'u') now = summary(name);
        else if (kind === 't') {
          const dot = name.indexOf('.');
          now = this.funcValues(name.slice(0, dot) as 'key' | 'type', name.slice(dot + 1))
            .map((d) => d.node.id)
            .join(',');
        } else if (kind === 'i') {
          const dot = name.indexOf('.');
          now = this.implementations(name.slice(0, dot), name.slice(dot + 1))
            .map((d) => d.node.id)
            .join(',');
        } else {
          const dot = name.indexOf('.');
          const d =
            kind === 'f'
              ? this.functions.get(name)
              : this.promoted(name.slice(0, dot), name.slice(dot + 1));
          now = d ? String(d.node.id) : '';
        }
        if (now !== answer) return false;
      }
      return true;
    } finally {
      this.recorder = saved;
    }
  }

  allFuncs(): FuncDecl[] {
    return [...this.functions.values(), ...this.methods.values()];
  }
}

/** `(r *Foo)` → { name: 'r', type: 'Foo' }. */
export function receiverOf(method: Node): { name: string | null; type: string } | null {
  const param = named(field(method, 'receiver')).find((n) => n.type === 'parameter_declaration');
  const type = typeName(field(param, 'type'));
  if (!type) return null;
  return { name: field(param, 'name')?.text ?? null, type };
}

/** A function's parameters as (name, type node) pairs. */
export type Params = readonly { readonly name: string; readonly type: Node }[];

/** Parameters as (name, type node) pairs, expanding `a, b T`. */
export function paramsOf(fn: Node): Params {
  // Kept per node: the rules ask of the same callee at each call edge, argument and closure.
  let out = paramsCache.get(fn);
  if (!out) {
    const list: { name: string; type: Node }[] = [];
    for (const p of named(field(fn, 'parameters'))) {
      if (p.type !== 'parameter_declaration' && p.type !== 'variadic_parameter_declaration')
        continue;
      const type = field(p, 'type');
      if (!type) continue;
      const names = named(p).filter((n) => n.type === 'identifier');
      for (const n of names) list.push({ name: n.text, type });
    }
    out = list;
    paramsCache.set(fn, out);
  }
  return out;
}

/** Gone with the node (an edited declaration gets new nodes). */
const paramsCache = new WeakMap<Node, Params>();

/** Result types' source text: `(ctrl.Result, error)` → ['ctrl.Result', 'error']. */
export function resultsOf(fn: Node): string[] {
  const r = field(fn, 'result');
  if (!r) return [];
  if (r.type !== 'parameter_list') return [r.text];
  const out: string[] = [];
  for (const p of named(r)) {
    const t = field(p, 'type');
    if (!t) continue;
    const n = named(p).filter((c) => c.type === 'identifier').length;
    for (let i = 0; i < Math.max(1, n); i++) out.push(t.text);
  }
  return out;
}

interface ImportSpec {
  path: string;
  alias: string | null;
  /** the name the file uses: the alias, or the default name */
  name: string;
}

/** Keyed by the file's root node, which every copy of the tree makes anew. */
const importSpecs = new WeakMap<Node, ImportSpec[]>();

/** A file's imports, read once per copy of its tree (the rules ask for them per call they check). */
function importsOf(file: GoFile): ImportSpec[] {
  let specs = importSpecs.get(file.root);
  if (!specs) {
    specs = [];
    for (const spec of descendants(file.root, 'import_spec')) {
      const path = field(spec, 'path')?.text.replace(/^["`]|["`]$/g, '');
      const alias = field(spec, 'name')?.text ?? null;
      if (path) specs.push({ path, alias, name: alias ?? defaultImportName(path) });
    }
    importSpecs.set(file.root, specs);
  }
  return specs;
}

/**
 * The name an unaliased import is known by, by Go's conventions: the last element, skipping a
 * module's major-version suffix (`github.com/cenkalti/backoff/v4` → backoff), without a `go-` prefix or `-go` suffix
 * (`.../retry-go` → retry). The package clause may say otherwise; then the file uses an alias.
 */
export function defaultImportName(path: string): string {
  const parts = path.split('/');
  let last = parts[parts.length - 1];
  // A module's major version (github.com/owner/repo/v4), not an API version (k8s.io/api/apps/v1).
  if (parts.length === 4 && parts[0] === 'github.com' && /^v\d+$/.test(last)) last = parts[2];
  if (/^\w+$/.test(last)) return last;
  return last.replace(/^go-|-go$/g, '').replace(/[^\w]/g, '');
}

/** The local name a file uses for an import path (`client` for .../pkg/client), or null. */
export function importName(file: GoFile, path: string): string | null {
  const spec = importsOf(file).find((s) => s.path === path);
  if (!spec || spec.alias === '_' || spec.alias === '.') return null;
  return spec.name;
}

/** The import path a file's qualifier stands for (`appsv1` → `k8s.io/api/apps/v1`), or null. */
export function importPathOf(file: GoFile, qualifier: string): string | null {
  for (const { path, name } of importsOf(file)) if (name === qualifier) return path;
  return null;
}

export const CLIENT_PKG = 'sigs.k8s.io/controller-runtime/pkg/client';
export const CTRL_PKG = 'sigs.k8s.io/controller-runtime';
export const CONTROLLERUTIL_PKG = 'sigs.k8s.io/controller-runtime/pkg/controller/controllerutil';
