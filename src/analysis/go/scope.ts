/**
 * Which custom kinds are cluster-scoped, read from what the user wrote: the kubebuilder marker
 * `+kubebuilder:resource:scope=Cluster` on an API type (controller-gen reads it from the comment
 * blocks above the type) and `scope: Cluster` in a CustomResourceDefinition's YAML. A List of such
 * a kind has no namespace to be scoped by.
 */
import { field, named, type Node } from './syntax';

const MARKER = /\+kubebuilder:resource:(?:[^\n]*[,:])?scope=Cluster\b/;

/** Type names in a Go file whose comments above carry the cluster-scope marker. */
export function markedClusterScoped(root: Node): string[] {
  const out: string[] = [];
  let comments: string[] = [];
  for (const child of root.children) {
    if (child.type === 'comment') {
      comments.push(child.text);
      continue;
    }
    if (child.type === 'type_declaration' && comments.some((c) => MARKER.test(c))) {
      for (const spec of named(child).filter((s) => s.type === 'type_spec')) {
        const name = field(spec, 'name')?.text;
        if (name) out.push(name);
      }
    }
    comments = [];
  }
  return out;
}

/** `names.kind` (and `names.listKind`) of every cluster-scoped CRD in a YAML text. */
export function crdClusterScopedKinds(yaml: string): string[] {
  const out: string[] = [];
  for (const doc of yaml.split(/^---[^\n]*$/m)) {
    if (!/^kind:\s*["']?CustomResourceDefinition["']?\s*$/m.test(doc)) continue;
    if (!/^\s+scope:\s*["']?Cluster["']?\s*$/m.test(doc)) continue;
    // The `names:` block of spec: the first `kind:` and `listKind:` indented below it.
    const lines = doc.split('\n');
    const at = lines.findIndex((l) => /^\s+names:\s*$/.test(l));
    if (at < 0) continue;
    const indent = /^\s*/.exec(lines[at])![0].length;
    for (const line of lines.slice(at + 1)) {
      if (line.trim() === '') continue;
      if (/^\s*/.exec(line)![0].length <= indent) break;
      const m = /^\s+(kind|listKind):\s*["']?(\w+)["']?\s*$/.exec(line);
      if (m) out.push(m[2]);
    }
  }
  return out;
}
