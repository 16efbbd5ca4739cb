// Generates generated/printcolumns.json: the columns kube-apiserver's Table answers have for each
// built-in kind — name, type, format, priority and description — as the release's
// pkg/printers/internalversion/printers.go declares them (`xColumnDefinitions :=
// []metav1.TableColumnDefinition{...}` handed to `h.TableHandler(xColumnDefinitions, printX)`).
// A description written as `T{}.SwaggerDoc()["field"]` is read from the
// types_swagger_doc_generated.go of T's package (k8s.io/api, or apimachinery's meta/v1). The cells
// are code (src/cluster/endpoints/table.ts); their names are checked against these.
//
// Run through scripts/generate.mjs.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { importsOf } from './apigen-generation.mjs';
import {
  downloadModule,
  kubernetesModuleVersion,
  kubernetesRelease,
  stagingModuleVersion,
} from './kubernetes.mjs';

/** A Go interpreted string literal's value (its escapes are JSON's, \u included). */
function goString(literal) {
  return JSON.parse(literal.replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1'));
}

/** Each `var map_T = map[string]string{...}` of a swagger doc file: T → field → text. */
function swaggerDocs(text) {
  const out = new Map();
  for (const m of text.matchAll(/^var map_(\w+) = map\[string\]string\{\n([\s\S]*?)^\}/gm)) {
    const fields = new Map();
    for (const f of m[2].matchAll(/^\s*"([^"]*)":\s*("(?:[^"\\]|\\.)*"),$/gm))
      fields.set(f[1], goString(f[2]));
    out.set(m[1], fields);
  }
  return out;
}

export function generate(release = kubernetesRelease()) {
  const k8s = downloadModule('k8s.io/kubernetes', kubernetesModuleVersion(release)).Dir;
  const staging = new Map(
    ['k8s.io/api', 'k8s.io/apimachinery'].map((m) => [
      m,
      downloadModule(m, stagingModuleVersion(release)).Dir,
    ]),
  );
  const folderOf = (importPath) => {
    if (importPath.startsWith('k8s.io/kubernetes/'))
      return join(k8s, importPath.slice('k8s.io/kubernetes/'.length));
    for (const [path, dir] of staging)
      if (importPath.startsWith(`${path}/`)) return join(dir, importPath.slice(path.length + 1));
    throw new Error(`printers.go imports ${importPath} from an unexpected module`);
  };
  const file = join(k8s, 'pkg', 'printers', 'internalversion', 'printers.go');
  const text = readFileSync(file, 'utf8');
  const imports = importsOf(text);
  const docs = new Map();
  const docOf = (alias, type, field) => {
    const pkg = imports.get(alias);
    if (!pkg) throw new Error(`printers.go: no import ${alias}`);
    if (!docs.has(pkg))
      docs.set(
        pkg,
        swaggerDocs(readFileSync(join(folderOf(pkg), 'types_swagger_doc_generated.go'), 'utf8')),
      );
    const doc = docs.get(pkg).get(type);
    if (!doc) throw new Error(`printers.go: no swagger doc of ${alias}.${type}`);
    // A field the doc lacks is Go's missing map key: "" (ObjectMeta has no binaryVersion).
    return doc.get(field) ?? '';
  };
  /** The type of a struct's field, from its package's Go files (`InvolvedObject ObjectReference`). */
  const fieldType = (alias, type, field) => {
    const dir = folderOf(imports.get(alias));
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.go') && !n.endsWith('_test.go'))) {
      const body = new RegExp(`^type ${type} struct \\{\n([\\s\\S]*?)^\\}`, 'm').exec(
        readFileSync(join(dir, f), 'utf8'),
      )?.[1];
      const t = body && new RegExp(`^\\t${field}\\s+\\*?(?:\\[\\])?(\\w+)`, 'm').exec(body)?.[1];
      if (t) return t;
    }
    throw new Error(`printers.go: cannot find the type of ${alias}.${type}.${field}`);
  };
  const groupOf = (alias) => {
    const register = readFileSync(join(folderOf(imports.get(alias)), 'register.go'), 'utf8');
    const group = /const GroupName = "([^"]*)"/.exec(register)?.[1];
    if (group === undefined) throw new Error(`printers.go: ${alias} declares no GroupName`);
    return group;
  };

  const definitions = new Map();
  for (const m of text.matchAll(
    /^\t(\w+) := \[\]metav1\.TableColumnDefinition\{\n([\s\S]*?)^\t\}/gm,
  )) {
    const columns = [];
    for (const c of m[2].matchAll(/^\t\t\{(.*)\},?\s*(?:\/\/.*)?$/gm)) {
      const name = /Name: ("(?:[^"\\]|\\.)*")/.exec(c[1]);
      if (!name) throw new Error(`printers.go: a column of ${m[1]} has no Name`);
      const type = /Type: "([^"]*)"/.exec(c[1])?.[1] ?? '';
      const format = /Format: "([^"]*)"/.exec(c[1])?.[1] ?? '';
      const priority = Number(/Priority: (\d+)/.exec(c[1])?.[1] ?? 0);
      const literal = /Description: ("(?:[^"\\]|\\.)*")/.exec(c[1]);
      const swagger = /Description: (\w+)\.(\w+)\{\}(?:\.(\w+))?\.SwaggerDoc\(\)\["(\w*)"\]/.exec(
        c[1],
      );
      const description = literal
        ? goString(literal[1])
        : swagger
          ? docOf(
              swagger[1],
              swagger[3] ? fieldType(swagger[1], swagger[2], swagger[3]) : swagger[2],
              swagger[4],
            )
          : undefined;
      if (description === undefined)
        throw new Error(`printers.go: cannot read the description of ${m[1]} ${name[1]}`);
      columns.push({ name: goString(name[1]), type, format, priority, description });
    }
    definitions.set(m[1], columns);
  }

  const kinds = {};
  for (const m of text.matchAll(/h\.TableHandler\((\w+), (\w+)\)/g)) {
    const columns = definitions.get(m[1]);
    if (!columns) throw new Error(`printers.go: ${m[1]} is not a column definition list`);
    const fn = new RegExp(`^func ${m[2]}\\(\\w+ \\*(\\w+)\\.(\\w+),`, 'm').exec(text);
    if (!fn) throw new Error(`printers.go: cannot find func ${m[2]}`);
    if (fn[2].endsWith('List')) continue;
    kinds[`${groupOf(fn[1])}/${fn[2]}`] = columns;
  }
  return { release, kinds };
}
