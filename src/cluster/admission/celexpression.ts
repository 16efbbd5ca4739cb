/**
 * An admission CEL expression (a webhook's or policy's matchCondition, a policy's validation,
 * variable or audit annotation) compiled on the Kubernetes CEL environment (cellibrary.ts) once
 * per text, and evaluated with cel-go's wording for its errors (`no such key: foo`).
 */
import { isCelError, parse, plan } from '@bufbuild/cel';
import { kubernetesCelEnv } from '../cel/cellibrary';
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

/** Compiles once per expression text: policies are read on every write. */
export function compile(expression: string): Compiled {
  let p = compiled.get(expression);
  if (!p) {
    try {
      p = plan(kubernetesCelEnv(), parse(expression)) as Program;
    } catch (err) {
      p = new CompilationError(err instanceof Error ? err.message : String(err));
    }
    compiled.set(expression, p);
  }
  return p;
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
