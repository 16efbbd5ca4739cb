/**
 * An admission CEL expression (a webhook's or policy's matchCondition, a policy's validation,
 * variable or audit annotation) compiled on admission's CEL environment (cellibrary.ts) once
 * per text, and evaluated with cel-go's wording for its errors (`no such key: foo`).
 */
import { isCelError, parse, plan } from '@bufbuild/cel';
import { admissionCelEnv } from '../cel/cellibrary';
import { celGoEvalMessage } from '../apiextensions/celvalidation';

export type Program = (bindings: Record<string, unknown>) => unknown;

/** An expression that does not compile: `compilation error: …`, as activation.go words it. */
export class CompilationError extends Error {
  constructor(detail: string) {
    super(`compilation error: ${detail}`);
  }
}

/** A compiled expression, or why it does not compile. */
export type Compiled = Program | CompilationError;

const compiled = new Map<string, Compiled>();

/**
 * Compiles once per expression text: policies are read on every write. With `objects`, a
 * mutation's object constructions (`Object{spec: Object.spec{…}}`, `JSONPatch{op: …}`) build maps:
 * cel-go types them from the kind's schema (and checks the names follow the field path), cel-es
 * knows no such types, and what the patcher needs of them is their fields.
 */
export function compile(expression: string, objects = false): Compiled {
  const key = objects ? `objects\u0000${expression}` : expression;
  let p = compiled.get(key);
  if (!p) {
    try {
      const parsed = parse(expression);
      if (objects) constructionsAsMaps(parsed.expr);
      p = plan(admissionCelEnv(), parsed) as Program;
    } catch (err) {
      p = new CompilationError(err instanceof Error ? err.message : String(err));
    }
    compiled.set(key, p);
  }
  return p;
}

type Expr = ReturnType<typeof parse>['expr'];

/** Rewrites every message construction in `e` into a map construction keyed by field name. */
function constructionsAsMaps(e: Expr | undefined): void {
  if (!e) return;
  const k = e.exprKind;
  if (k.case === 'structExpr') {
    k.value.messageName = '';
    for (const entry of k.value.entries) {
      if (entry.keyKind.case === 'fieldKey')
        entry.keyKind = {
          case: 'mapKey',
          value: {
            $typeName: 'cel.expr.Expr',
            id: entry.id,
            exprKind: {
              case: 'constExpr',
              value: {
                $typeName: 'cel.expr.Constant',
                constantKind: { case: 'stringValue', value: entry.keyKind.value },
              },
            },
          },
        };
      constructionsAsMaps(entry.value);
    }
    return;
  }
  for (const child of Object.values(k.value ?? {}) as unknown[]) {
    if (Array.isArray(child)) child.forEach((c) => constructionsAsMaps(c as Expr));
    else if (child && typeof child === 'object' && 'exprKind' in child)
      constructionsAsMaps(child as Expr);
  }
}

/** An expression's result, or an Error carrying cel-go's words for what went wrong. */
export function evaluate(c: Compiled, bindings: Record<string, unknown>): unknown {
  if (c instanceof CompilationError) return c;
  let out: unknown;
  try {
    out = c(bindings);
  } catch (err) {
    out = err;
  }
  if (isCelError(out)) return new Error(celGoEvalMessage(out.message));
  if (out instanceof Error) return new Error(celGoEvalMessage(out.message));
  return out;
}

/** activation.Evaluate's error: a compilation error as is, an evaluation error with its expression. */
export function evaluationFailure(expression: string, err: Error): string {
  return err instanceof CompilationError
    ? err.message
    : `expression '${expression}' resulted in error: ${err.message}`;
}
