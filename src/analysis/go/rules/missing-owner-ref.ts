/**
 * missing-owner-ref: Reconcile creates a child it builds itself (a literal or a same-package
 * builder) and nothing on the way sets an owner reference. Without a controller reference the
 * child is not garbage-collected with its owner and its changes do not enqueue the owner (Owns()
 * watches match on it). Insert ctrl.SetControllerReference before the Create.
 */
import { checkedCall, fix, insertBefore, packageName } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { CLUSTER_SCOPED_KINDS } from '../kinds';
import { CONTROLLERUTIL_PKG, CTRL_PKG, importName, type GoPackage } from '../package';
import { localOrigin, passedToUnknownCall } from '../origins';
import { localVarType, returnErrorStatement, type PathFunc } from '../reconcilers';
import {
  argVar,
  callArgs,
  callee,
  descendants,
  enclosingStatement,
  field,
  named,
  type Node,
} from '../syntax';

/** Kinds that are cluster-scoped or never owned by a namespaced custom resource. */
const UNOWNED = new Set([
  ...CLUSTER_SCOPED_KINDS,
  'Event',
  'TokenReview',
  'SubjectAccessReview',
  'SelfSubjectAccessReview',
  'LocalSubjectAccessReview',
]);

/**
 * Does the literal set its namespace from some object's namespace (`Namespace: app.Namespace`)?
 * A constant (`metav1.NamespaceSystem`, "kube-system") means another namespace, often another
 * cluster; no namespace means cluster-scoped or set later. Either way, not reported.
 */
function namespaceFromAnObject(literal: Node): boolean {
  for (const el of descendants(literal, 'keyed_element')) {
    const [key, value] = named(el);
    if (key?.text !== 'Namespace' || !value) continue;
    return /\.(Namespace|GetNamespace\(\))$/.test(value.text.trim());
  }
  return false;
}

/**
 * A reconciler of StatefulSets that creates PersistentVolumeClaims does what kube's StatefulSet
 * controller does with volumeClaimTemplates: under the default persistentVolumeClaimRetentionPolicy
 * (Retain) those claims get no owner reference, so the data outlives the StatefulSet and its pods.
 */
function retainedClaim(reconciledType: string | null, childType: string): boolean {
  return reconciledType === 'StatefulSet' && childType === 'PersistentVolumeClaim';
}

const OWNER_HINT =
  /SetControllerReference|SetOwnerReference|OwnerReferences|NewControllerRef|OwnerReference\{/;
/** Calls that set an owner on their second argument. */
const OWNER_SETTERS = new Set(['SetControllerReference', 'SetOwnerReference']);

/**
 * The children that `fn` visibly gives an owner: `SetControllerReference(owner, child, ...)`,
 * `child.SetOwnerReferences(...)`, `child.OwnerReferences = ...`. Null when some owner-setting
 * code names no variable we can read (a loop over objects, a field path): then any child may be
 * owned, and nothing in `fn` is reported.
 */
function ownedChildren(fn: PathFunc): Set<string> | null {
  if (!OWNER_HINT.test(fn.body.text)) return new Set();
  const owned = new Set<string>();
  let explained = 0;
  for (const call of fn.calls) {
    const c = callee(call);
    if (!c) continue;
    if (OWNER_SETTERS.has(c.name)) {
      const child = argVar(callArgs(call)[1]);
      if (!child) return null;
      owned.add(child);
      explained++;
    } else if (c.name === 'SetOwnerReferences' && c.operand?.type === 'identifier') {
      owned.add(c.operand.text);
      explained++;
    }
  }
  for (const a of descendants(fn.body, 'assignment_statement')) {
    const m = /^(\w+)\.(ObjectMeta\.)?OwnerReferences$/.exec(
      named(field(a, 'left'))[0]?.text ?? '',
    );
    if (!m) continue;
    owned.add(m[1]);
    explained++;
  }
  // Every mention of an owner must be one of those (literals are checked per child).
  const mentions = fn.body.text.match(new RegExp(OWNER_HINT.source, 'g'))?.length ?? 0;
  const inLiterals = descendants(fn.body, 'composite_literal')
    .filter((l) => l.parent?.type !== 'literal_element' && l.parent?.type !== 'keyed_element')
    .reduce((n, l) => n + (l.text.match(new RegExp(OWNER_HINT.source, 'g'))?.length ?? 0), 0);
  return mentions - inLiterals <= explained ? owned : null;
}

export const missingOwnerRef: GoRule = {
  id: 'missing-owner-ref',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      if (rec.root.reconciled.size === 0) continue;
      // A Namespace (or Node, ...) reconciler: what it creates inside goes away with the
      // namespace anyway, and built-in cluster objects are rarely meant as controllers of it.
      if (rec.objectType && UNOWNED.has(rec.objectType)) continue;
      for (const fn of rec.funcs) {
        const owned = ownedChildren(fn);
        if (!owned) continue;
        for (const cc of fn.clientCalls) {
          if (cc.status || cc.method !== 'Create') continue;
          const child = argVar(cc.args[1]);
          if (!child || fn.reconciled.has(child) || owned.has(child)) continue;
          const origin = localOrigin(ctx.pkg, fn, child, cc.call);
          if (!origin || !origin.typeName || UNOWNED.has(origin.typeName)) continue;
          if (retainedClaim(rec.objectType, origin.typeName)) continue;
          if (origin.builder && OWNER_HINT.test(origin.builder.node.text)) continue;
          if (OWNER_HINT.test(origin.literal.text)) continue;
          // A child in another namespace (or one we cannot tell) cannot be owned by this object.
          if (!namespaceFromAnObject(origin.literal)) continue;
          if (passedToUnknownCall(fn, child, origin.def, cc.call)) continue;
          ctx.report({
            file: fn.file,
            node: cc.call,
            message: `${child} (${origin.typeName}) is created without a controller owner reference. It is not garbage-collected with its owner and its changes do not trigger a reconcile; call SetControllerReference before Create.`,
            fixes: () => fixesFor(ctx.pkg, fn, cc.call, child),
          });
        }
      }
    }
  },
};

function schemeExpr(pkg: GoPackage, fn: PathFunc): string | null {
  if (!fn.receiver || !fn.decl.receiverType) return null;
  const struct = pkg.struct(fn.decl.receiverType);
  if (struct?.fields.has('Scheme')) return `${fn.receiver}.Scheme`;
  if (fn.clientIdents.has(fn.receiver)) return `${fn.receiver}.Scheme()`;
  if (fn.clientFields.has('Client')) return `${fn.receiver}.Client.Scheme()`;
  return null;
}

/** `&cr` when the owner is a value variable, `cr` when it already is a pointer. */
function ownerExpr(fn: PathFunc): string | null {
  const owner = [...fn.reconciled][0];
  if (!owner) return null;
  const isValue = descendants(fn.body, 'var_spec').some(
    (s) =>
      named(s).some((n) => n.type === 'identifier' && n.text === owner) &&
      field(s, 'type')?.type !== 'pointer_type',
  );
  if (isValue) return `&${owner}`;
  return localVarType(fn, owner) ? owner : null;
}

function fixesFor(pkg: GoPackage, fn: PathFunc, call: Node, child: string): Fix[] {
  const scheme = schemeExpr(pkg, fn);
  const owner = ownerExpr(fn);
  const ret = returnErrorStatement(fn, 'err');
  // Either package has SetControllerReference; import controllerutil when the file has neither.
  const have = importName(fn.file, CONTROLLERUTIL_PKG) ?? importName(fn.file, CTRL_PKG);
  const util = have
    ? { name: have, edits: [] }
    : packageName(fn.file, CONTROLLERUTIL_PKG, 'controllerutil');
  const stmt = enclosingStatement(call);
  if (!scheme || !owner || !ret || !util || !stmt) return [];
  return [
    fix(
      'Set the controller reference before Create',
      insertBefore(
        fn.file,
        stmt,
        checkedCall(`${util.name}.SetControllerReference(${owner}, ${child}, ${scheme})`, ret),
      ),
      ...util.edits,
    ),
  ];
}
