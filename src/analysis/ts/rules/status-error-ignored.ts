/**
 * status-error-ignored (TypeScript): a `client.status().update/patch(...)` promise that is neither
 * awaited nor returned, is voided, or whose rejection is swallowed by `.catch(() => undefined)` or
 * an empty `catch {}`. The failure is lost and the next reconcile reads a stale status.
 */
import * as ts from 'typescript';
import { clientCalls } from '../reconcilers';
import type { TsRule } from '../rule';

/** A `.catch(handler)` whose handler neither rethrows nor returns a rejected promise. */
function swallows(handler: ts.Expression | undefined): boolean {
  if (!handler || !(ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) return false;
  const text = handler.body.getText();
  return !/\bthrow\b|Promise\.reject/.test(text);
}

function verdict(call: ts.CallExpression): string | null {
  let n: ts.Node = call;
  // Climb through `.then(...)`/`.catch(...)`/`.finally(...)` chains and parentheses.
  for (;;) {
    const p = n.parent;
    if (p && ts.isParenthesizedExpression(p)) {
      n = p;
      continue;
    }
    if (
      p &&
      ts.isPropertyAccessExpression(p) &&
      p.expression === n &&
      p.parent &&
      ts.isCallExpression(p.parent)
    ) {
      const name = p.name.text;
      if (name === 'catch' && swallows(p.parent.arguments[0]))
        return 'its rejection is swallowed by .catch';
      if (name === 'then' && swallows(p.parent.arguments[1]))
        return 'its rejection is swallowed by .then';
      if (name === 'catch' || name === 'then' || name === 'finally') {
        n = p.parent;
        continue;
      }
    }
    break;
  }
  const p = n.parent;
  if (!p) return null;
  if (ts.isExpressionStatement(p)) return 'the promise is neither awaited nor returned';
  if (ts.isVoidExpression(p)) return 'the promise is voided';
  if (ts.isAwaitExpression(p) && ts.isExpressionStatement(p.parent)) {
    // `try { await status().update(x) } catch {}`: an empty catch around just this write.
    const block = p.parent.parent;
    const tryStmt = block?.parent;
    if (
      tryStmt &&
      ts.isTryStatement(tryStmt) &&
      tryStmt.tryBlock === block &&
      tryStmt.catchClause?.block.statements.length === 0
    ) {
      return 'its error is swallowed by an empty catch';
    }
  }
  return null;
}

export const tsStatusErrorIgnored: TsRule = {
  id: 'status-error-ignored',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const cc of clientCalls(fn)) {
          if (!cc.status) continue;
          const why = verdict(cc.call);
          if (!why) continue;
          // A bare statement in an async function: awaiting it lets the error propagate.
          const stmt = cc.call.parent;
          const awaitable =
            stmt &&
            ts.isExpressionStatement(stmt) &&
            stmt.expression === cc.call &&
            inAsync(cc.call);
          ctx.report(
            cc.call,
            `This status ${cc.method} can fail unseen. Its error is lost: ${why}. If it fails nothing retries it and the next reconcile reads a stale status; await it and let the error propagate.`,
            awaitable
              ? [
                  {
                    title: 'Await the status write',
                    edits: [
                      { start: cc.call.getStart(), end: cc.call.getStart(), newText: 'await ' },
                    ],
                  },
                ]
              : [],
          );
        }
      }
    }
  },
};

/** Is `node` directly inside an async function (not a nested non-async one)? */
function inAsync(node: ts.Node): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (ts.isFunctionLike(p)) {
      return !!ts
        .getModifiers(p as ts.FunctionLikeDeclaration & ts.HasModifiers)
        ?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
    }
  }
  return false;
}
