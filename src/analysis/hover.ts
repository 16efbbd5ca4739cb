/**
 * Hover text: what a client call in a reconcile path does to the reconcile loop, what a
 * kubebuilder marker generates, and the rule page for a finding under the cursor. Markdown out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detail, type Finding, type Range } from './diagnostics';
import { GoPackage, type GoFile } from './go/package';
import { findReconcilers } from './go/reconcilers';
import type { Node } from './go/syntax';
import { ruleMeta } from './rules';

export interface HoverResult {
  markdown: string;
  range: Range;
}

const CALL_HELP: Record<string, string> = {
  Get: 'Reads from the informer cache, not the API server: right after a write it may return the previous version. A NotFound here for the reconciled object usually means it was deleted: ignore it.',
  List: 'Reads from the informer cache. Without a namespace or selector it copies every object of the kind on each reconcile.',
  Create:
    'Creates the object. If the controller `Owns()` this kind and the object has a controller reference, the create event enqueues the owner again.',
  Update:
    'Writes the whole object with optimistic concurrency: it fails with Conflict if the cached copy was stale, and needs a resourceVersion. A spec change bumps `metadata.generation` and fires an event for this object, so the reconciled object reconciles again.',
  Patch:
    'Sends only the change (no resourceVersion needed unless optimistic locking is requested). A spec change bumps `metadata.generation` and fires a watch event.',
  Delete:
    'Deletes the object (finalizers may delay it). Owned children go with it through garbage collection.',
  DeleteAllOf: 'Deletes every object matching the options: scope it with a namespace and labels.',
  Apply: 'Server-side apply: the API server merges the fields this field manager owns.',
};

const STATUS_HELP =
  'Writes the status subresource. It bumps resourceVersion (not generation) and fires an update event for the object, which triggers another reconcile unless the watch filters it (e.g. `predicate.GenerationChangedPredicate`). Check its error and write status once per reconcile.';

/** Marker prefixes, longest first, with what controller-gen does with them. */
const MARKERS: [string, string][] = [
  [
    '+kubebuilder:rbac',
    "RBAC marker: controller-gen adds these verbs on these resources to the manager's ClusterRole (`make manifests`).",
  ],
  [
    '+kubebuilder:object:root',
    'Marks a root API type (one with TypeMeta/ObjectMeta): controller-gen generates `DeepCopyObject` so it implements `runtime.Object`.',
  ],
  ['+kubebuilder:object:generate', 'Turns DeepCopy generation on or off for this package or type.'],
  [
    '+kubebuilder:subresource:status',
    'Enables the `/status` subresource: status is written with `Status().Update/Patch`, and spec writes ignore status. Status writes do not bump generation.',
  ],
  [
    '+kubebuilder:subresource:scale',
    'Enables the `/scale` subresource (for `kubectl scale` and the HPA).',
  ],
  [
    '+kubebuilder:resource',
    'CRD resource settings: scope (Namespaced/Cluster), shortName, categories, path.',
  ],
  ['+kubebuilder:printcolumn', 'Adds a column to `kubectl get` output for this kind.'],
  ['+kubebuilder:storageversion', 'Marks this version as the one objects are stored in etcd.'],
  [
    '+kubebuilder:validation',
    'OpenAPI validation in the CRD schema: the API server rejects objects that do not match, before your controller sees them.',
  ],
  [
    '+kubebuilder:default',
    'Default value applied by the API server (structural schema defaulting) when the field is absent.',
  ],
  [
    '+kubebuilder:webhook',
    'Webhook configuration: controller-gen writes the (Validating|Mutating)WebhookConfiguration entry.',
  ],
  [
    '+kubebuilder:pruning',
    'Field pruning control: `PreserveUnknownFields` keeps fields not in the schema.',
  ],
  [
    '+kubebuilder',
    'A kubebuilder / controller-gen marker: it changes generated code or manifests, not runtime behaviour.',
  ],
  [
    '+groupName',
    'The API group of the types in this package (used in the CRD and the scheme registration).',
  ],
  ['+versionName', 'Overrides the API version name of this package.'],
  ['+optional', 'The field is optional in the CRD schema (not listed in `required`).'],
  ['+required', 'The field is required in the CRD schema.'],
  ['+nullable', 'The field accepts `null` in the CRD schema.'],
  [
    '+listType',
    'List semantics for server-side apply: `atomic`, `set` or `map` (with `+listMapKey`).',
  ],
  ['+listMapKey', 'The key field of a `+listType=map` list, for server-side apply merges.'],
  ['+mapType', 'Map semantics for server-side apply: `atomic` or `granular`.'],
  ['+structType', 'Struct semantics for server-side apply: `atomic` or `granular`.'],
  ['+k8s:deepcopy-gen', 'deepcopy-gen control for this package or type.'],
  ['+genclient', 'client-gen generates a typed clientset for this type.'],
];

export function markerHelp(comment: string): string | null {
  const m = /^\/\/\s*(\+[\w:.-]+)/.exec(comment);
  if (!m) return null;
  const marker = m[1];
  const hit = MARKERS.find(
    ([prefix]) =>
      marker === prefix || marker.startsWith(`${prefix}:`) || marker.startsWith(`${prefix}=`),
  );
  return hit ? `**\`${marker}\`** — ${hit[1]}` : null;
}

/** The text of docs/rules/<id>.md, looked up next to the bundle or in the repository. */
export function ruleDoc(id: string, from: string = __dirname): string | null {
  for (const base of [
    join(from, 'docs', 'rules'),
    join(from, '..', 'docs', 'rules'),
    join(from, '..', '..', 'docs', 'rules'),
  ]) {
    const p = join(base, `${id}.md`);
    if (existsSync(p)) return readFileSync(p, 'utf8');
  }
  return null;
}

function within(node: Node, offset: number): boolean {
  return node.startIndex <= offset && offset < node.endIndex;
}

/** Hover for Go: a marker comment, a finding's rule, or a client call on a reconcile path. */
export function goHover(
  files: GoFile[],
  file: GoFile,
  offset: number,
  findings: Finding[],
): HoverResult | null {
  const pos = file.lines.position(offset);
  const finding = findings.find(
    (f) => f.file === file.path && inRange(f.range, pos.line, pos.character),
  );
  if (finding) {
    const meta = ruleMeta(finding.rule);
    const doc = ruleDoc(finding.rule);
    const body = doc ? stripTitle(doc) : (meta?.summary ?? '');
    // The diagnostic shows the message's first sentence; the why and the fix come here.
    const why = detail(finding.message);
    return {
      markdown: `**${finding.rule}** — ${meta?.title ?? ''}\n\n${why ? `${why}\n\n---\n\n` : ''}${body}`,
      range: finding.range,
    };
  }
  const node = file.root.descendantForIndex(offset);
  if (node?.type === 'comment') {
    const help = markerHelp(node.text);
    if (help) return { markdown: help, range: file.lines.range(node.startIndex, node.endIndex) };
    return null;
  }
  const pkg = new GoPackage(files);
  for (const rec of findReconcilers(pkg)) {
    for (const fn of rec.funcs) {
      if (fn.file.path !== file.path || !within(fn.body, offset)) continue;
      // The innermost client call whose callee (not its arguments) is under the cursor.
      const hits = fn.clientCalls.filter((cc) => {
        const callee = cc.call.childForFieldName('function');
        return !!callee && within(callee, offset);
      });
      const cc = hits.sort((a, b) => b.call.startIndex - a.call.startIndex)[0];
      if (!cc) continue;
      const what = cc.status ? `Status().${cc.method}` : cc.method;
      const help = cc.status ? STATUS_HELP : CALL_HELP[cc.method];
      const where = fn.isRoot ? 'in Reconcile' : `in ${fn.decl.name}, reached from Reconcile`;
      return {
        markdown: `**client.${what}** ${where}\n\n${help}`,
        range: file.lines.range(cc.call.startIndex, cc.call.endIndex),
      };
    }
  }
  return null;
}

function inRange(r: Range, line: number, ch: number): boolean {
  const afterStart = line > r.start.line || (line === r.start.line && ch >= r.start.character);
  const beforeEnd = line < r.end.line || (line === r.end.line && ch <= r.end.character);
  return afterStart && beforeEnd;
}

function stripTitle(md: string): string {
  return md.replace(/^# .*\n+/, '');
}
