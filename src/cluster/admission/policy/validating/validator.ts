/**
 * One ValidatingAdmissionPolicy judging one request with one param (k8s.io/apiserver
 * admission/plugin/policy/validating validator.go): its matchConditions, then each validation —
 * true admits, false denies with the messageExpression's result (one line, at most 5 KiB,
 * trimmed), else the message, else `failed expression: <expression>`, with the validation's
 * reason (Invalid by default); an error is the failurePolicy's (Fail denies with the error,
 * Ignore admits) — then each auditAnnotation's valueExpression (a string is published, null or
 * an empty string left out, anything else an error).
 */
import { compile, evaluate, evaluationFailure } from '../../celexpression';
import { evaluateMatchConditions } from '../../webhook/matchconditions';
import type { CommonSpec } from '../source';
import { commonSpecOf, objects, str } from '../source';

export type FailurePolicy = 'Fail' | 'Ignore';

export interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

/** ValidatingAdmissionPolicySpec, as the validator reads it. */
export interface PolicySpec extends CommonSpec {
  validations: Validation[];
  auditAnnotations: AuditAnnotation[];
}

/** A stored ValidatingAdmissionPolicy's spec, as the validator reads it. */
export function validatingSpecOf(spec: Record<string, unknown>): PolicySpec {
  return {
    ...commonSpecOf(spec),
    validations: objects(spec.validations).map((v) => ({
      expression: str(v.expression),
      ...(typeof v.message === 'string' ? { message: v.message } : {}),
      ...(typeof v.messageExpression === 'string'
        ? { messageExpression: v.messageExpression }
        : {}),
      ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
    })),
    auditAnnotations: objects(spec.auditAnnotations).map((a) => ({
      key: str(a.key),
      valueExpression: str(a.valueExpression),
    })),
  };
}

/** PolicyDecision: admit, or deny with a message and the Status reason it carries. */
export type Decision =
  { action: 'admit' } | { action: 'deny'; message: string; reason?: string; evalError: boolean };

export type AnnotationResult =
  | { action: 'publish'; key: string; value: string }
  | { action: 'exclude' }
  | { action: 'error'; error: string };

export interface ValidateResult {
  decisions: Decision[];
  auditAnnotations: AnnotationResult[];
}

/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const MAX_MESSAGE_BYTES = 5 * 1024;

const onError = (f: FailurePolicy, message: string): Decision =>
  f === 'Ignore' ? { action: 'admit' } : { action: 'deny', message, evalError: true };

function messageOf(out: unknown): string {
  if (typeof out !== 'string') return '';
  const m = out.trim();
  if (Buffer.byteLength(m) > MAX_MESSAGE_BYTES || m.includes('\n')) return '';
  return m;
}

/** A messageExpression is compiled without `authorizer` (plugin.go's expressionOptionalVars). */
function withoutAuthorizer(bindings: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...bindings };
  delete rest.authorizer;
  return rest;
}

function judge(v: Validation, f: FailurePolicy, bindings: Record<string, unknown>): Decision {
  const out = evaluate(compile(v.expression), bindings);
  if (out instanceof Error) return onError(f, evaluationFailure(v.expression, out));
  if (out === true) return { action: 'admit' };
  let message = v.messageExpression
    ? messageOf(evaluate(compile(v.messageExpression), withoutAuthorizer(bindings)))
    : '';
  if (!message && v.message) message = v.message.trim();
  if (!message) message = `failed expression: ${v.expression.trim()}`;
  return { action: 'deny', message, reason: v.reason || 'Invalid', evalError: false };
}

function annotate(
  a: AuditAnnotation,
  f: FailurePolicy,
  bindings: Record<string, unknown>,
): AnnotationResult {
  const out = evaluate(compile(a.valueExpression), bindings);
  const error = (e: string): AnnotationResult =>
    f === 'Ignore' ? { action: 'exclude' } : { action: 'error', error: e };
  if (out instanceof Error) return error(evaluationFailure(a.valueExpression, out));
  if (out === null) return { action: 'exclude' };
  if (typeof out !== 'string')
    return error(
      `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${celTypeName(out)}. Return type must be either string or null.`,
    );
  const value = out.trim();
  return value ? { action: 'publish', key: a.key, value } : { action: 'exclude' };
}

/** A CEL value's type as cel-go prints it. */
function celTypeName(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof Uint8Array) return 'bytes';
  if (v && typeof v === 'object' && Symbol.iterator in v) return 'get' in v ? 'map' : 'list';
  return 'dyn';
}

/** validator.Validate */
export function validate(p: PolicySpec, bindings: Record<string, unknown>): ValidateResult {
  const f = p.failurePolicy;
  const matched = evaluateMatchConditions(p.matchConditions, f, bindings);
  if ('error' in matched) return { decisions: [onError(f, matched.error)], auditAnnotations: [] };
  if (!matched.matches) return { decisions: [], auditAnnotations: [] };
  return {
    decisions: p.validations.map((v) => judge(v, f, bindings)),
    auditAnnotations: p.auditAnnotations.map((a) => annotate(a, f, bindings)),
  };
}
