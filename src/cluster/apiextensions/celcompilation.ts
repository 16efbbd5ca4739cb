/**
 * Compilation of x-kubernetes-validations rules (apiextensions-apiserver's schema/cel
 * compilation.go): each rule and messageExpression parsed once into a planned @bufbuild/cel
 * program, `self` (and `oldSelf`) typed by the schema node the rule sits on. cel-es has no public
 * type checker, so a small one here catches what cel-go's checker reports most often on CRD rules
 * — an undefined field of `self`, an undeclared identifier or function, a rule that is not a
 * bool, a messageExpression that is not a string — with cel-go's wording and positions
 * (`compilation failed: ERROR: <input>:1:5: undefined field 'foo'`). Like cel-go it goes on past
 * an error (the erroneous value typed as an error, which raises nothing further) and lists every
 * error in source order. checkExpression is the same checker over any variables typed by schemas
 * (a ValidatingAdmissionPolicy's object, params, request, variables: typechecking.go's use).
 */
import type { CelResult } from '@bufbuild/cel';
import { parse, plan } from '@bufbuild/cel';
import { kubernetesCelEnv } from '../cel/cellibrary';
import { isObject } from '../apimachinery/patch';
import type { JSONSchemaProps, ValidationRule } from './jsonschema';

type Expr = ReturnType<typeof parse>['expr'];
export type CelProgram = (bindings: Record<string, unknown>) => CelResult;

export interface CompiledRule {
  rule: ValidationRule;
  program?: CelProgram;
  messageProgram?: CelProgram;
  usesOldSelf: boolean;
  /** The apiserver's detail when the rule does not compile (`compilation failed: ...`). */
  error?: string;
  messageExpressionError?: string;
  /** fieldPath as a field path relative to the rule's node (`foo[bar].baz`), when valid. */
  fieldPath?: string;
}

/**
 * A CEL value's static type: a schema node (as SchemaDeclType would declare it: an object's
 * properties are its fields, additionalProperties makes it a map), or a primitive CEL type name
 * ('dyn' for anything not known; 'error' for the value of an expression already reported).
 */
export type StaticType = JSONSchemaProps | string;

/** The type of `self` at a resource root: only apiVersion, kind, metadata.name/generateName. */
export function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const str: JSONSchemaProps = { type: 'string' };
  return {
    ...s,
    properties: {
      ...(s.properties ?? {}),
      apiVersion: str,
      kind: str,
      metadata: { type: 'object', properties: { name: str, generateName: str } },
    },
  };
}

const TYPE_IDENTS = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

/** Calls whose result type is known without overload resolution. */
const BOOL_CALLS = new Set([
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '_&&_',
  '_||_',
  '!_',
  '@in',
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'isSorted',
]);

function primitive(t: StaticType): string {
  if (typeof t === 'string') return t;
  if (t['x-kubernetes-int-or-string']) return 'dyn';
  switch (t.type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'string':
      if (t.format === 'byte') return 'bytes';
      if (t.format === 'duration') return 'duration';
      if (t.format === 'date' || t.format === 'date-time') return 'timestamp';
      return 'string';
    case 'array':
      return 'list';
    case 'object':
      return 'map';
    default:
      return 'dyn';
  }
}

class CompileError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** cel-go's issue rendering: `ERROR: <input>:L:C: msg` and the source line with a caret. */
function renderIssue(source: string, offset: number, message: string): string {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

/**
 * Declarations the checker knows beyond its variables. `declared` (CRD rules): an identifier or
 * function the environment lacks is cel-go's undeclared reference. `assumed` (admission policies,
 * whose expressions the apiserver already compiled against its own environment when it admitted
 * them): anything the checker does not know — an identifier, a function, a macro cel-es leaves
 * unexpanded — is dyn and raises nothing.
 */
export type References = 'declared' | 'assumed';

/** Functions cel-es leaves as calls where cel-go expands a macro (two-variable comprehensions, cel.bind). */
const UNEXPANDED_MACROS = new Set([
  'all',
  'exists',
  'existsOne',
  'exists_one',
  'transformList',
  'transformMap',
  'transformMapEntry',
  'map',
  'filter',
  'bind',
  'sortBy',
]);

/** The static checker: walks the parsed expression, returning its type and collecting errors. */
class Checker {
  usesOldSelf = false;
  readonly errors: CompileError[] = [];

  constructor(
    private readonly source: string,
    private readonly positions: Record<string, number>,
    private readonly vars: Map<string, StaticType>,
    private readonly references: References = 'declared',
  ) {}

  /** Notes an error, as cel-go's checker does before going on with the error type. */
  private fail(message: string, offset: number): StaticType {
    this.errors.push(new CompileError(message, offset));
    return 'error';
  }

  private at(e: Expr): number {
    return this.positions[String(e.id)] ?? 0;
  }

  /**
   * cel-go places a named call at its `(` and `&&`, `||`, `?:` and `in` at the operator, where
   * cel-es records the start of the name or the first operand: the next such token from there (in
   * a chain of three or more `&&`, cel-go's balanced tree may name a later operator).
   */
  private tokenAt(e: Expr, token: string): number {
    const i = this.source.indexOf(token, this.at(e));
    return i < 0 ? this.at(e) : i;
  }

  check(e: Expr, scope: Map<string, StaticType> = this.vars): StaticType {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return constType(k.value.constantKind.case);
      case 'identExpr': {
        const t = scope.get(k.value.name);
        if (t !== undefined) {
          if (k.value.name === 'oldSelf') this.usesOldSelf = true;
          return t;
        }
        if (TYPE_IDENTS.has(k.value.name)) return 'type';
        if (this.references === 'assumed') return 'dyn';
        return this.fail(`undeclared reference to '${k.value.name}' (in container '')`, this.at(e));
      }
      case 'selectExpr': {
        const operand = this.check(k.value.operand!, scope);
        if (operand === 'error') return k.value.testOnly ? 'bool' : 'error';
        const field = selectField(operand, k.value.field);
        // has(x.f) is placed at the macro's `(`, as cel-go places a call.
        const where = k.value.testOnly ? this.tokenAt(e, '(') : this.at(e);
        if (field === undefined) return this.fail(`undefined field '${k.value.field}'`, where);
        const p = primitive(operand);
        if (SCALARS.has(p)) return this.fail(`type '${p}' does not support field selection`, where);
        return k.value.testOnly ? 'bool' : field;
      }
      case 'callExpr': {
        const { target, function: fn, args } = k.value;
        if (this.references === 'assumed' && UNEXPANDED_MACROS.has(fn)) return 'dyn';
        let name = fn;
        const qualified =
          target?.exprKind.case === 'identExpr' && !scope.has(target.exprKind.value.name);
        if (qualified) name = `${(target.exprKind.value as { name: string }).name}.${fn}`;
        const targetType = target && !qualified ? this.check(target, scope) : undefined;
        const argTypes = args.map((a) => this.check(a, scope));
        const mismatch = overloadMismatch(name, targetType, argTypes);
        const where = OPERATOR_TOKENS[name]
          ? this.tokenAt(e, OPERATOR_TOKENS[name])
          : /^[_@!-]/.test(name)
            ? this.at(e)
            : this.tokenAt(e, '(');
        if (mismatch) return this.fail(mismatch, where);
        const known = /^[_@!-]/.test(name) || !!kubernetesCelEnv().funcs.find(name);
        if (!known) {
          if (this.references === 'assumed') return 'dyn';
          return this.fail(`undeclared reference to '${name}' (in container '')`, where);
        }
        if (name === '_[_]') return indexType(argTypes[0]!);
        if (BOOL_CALLS.has(name)) return 'bool';
        if (name === '_?_:_') {
          const [then, otherwise] = argTypes.slice(1).map(primitive);
          return then === otherwise ? then! : 'dyn';
        }
        if (ARITHMETIC.has(name) && argTypes[0]) {
          const p = primitive(argTypes[0]);
          return ['int', 'uint', 'double', 'string', 'list'].includes(p) ? p : 'dyn';
        }
        return /^[_@!-]/.test(name) ? 'dyn' : declaredResult(name);
      }
      case 'listExpr':
        for (const x of k.value.elements) this.check(x, scope);
        return 'list';
      case 'structExpr':
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') this.check(entry.keyKind.value, scope);
          if (entry.value) this.check(entry.value, scope);
        }
        return k.value.messageName ? 'dyn' : 'map';
      case 'comprehensionExpr': {
        const c = k.value;
        const range = this.check(c.iterRange!, scope);
        const inner = new Map(scope);
        inner.set(c.iterVar, elementType(range));
        if (c.iterVar2) inner.set(c.iterVar2, 'dyn');
        inner.set(c.accuVar, 'dyn');
        this.check(c.accuInit!, scope);
        this.check(c.loopCondition!, inner);
        this.check(c.loopStep!, inner);
        const result = new Map(scope);
        result.set(c.accuVar, 'dyn');
        this.check(c.result!, result);
        return 'dyn';
      }
      default:
        return 'dyn';
    }
  }
}

/** Methods defined on strings only. */
const STRING_METHODS = new Set([
  'startsWith',
  'endsWith',
  'contains',
  'matches',
  'lowerAscii',
  'upperAscii',
  'trim',
  'split',
  'replace',
  'charAt',
  'substring',
  'find',
  'findAll',
]);

const COMPARISONS = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_']);
const ARITHMETIC = new Set(['_+_', '_-_', '_*_', '_/_', '_%_', '-_']);
const LOGICAL = new Set(['_&&_', '_||_', '!_']);
/** Operators cel-go places at their token, where cel-es records the first operand's start. */
const OPERATOR_TOKENS: Record<string, string> = {
  '_&&_': '&&',
  '_||_': '||',
  '_?_:_': '?',
  '@in': 'in',
};
const RESULT_SCALARS = new Set(['bool', 'int', 'uint', 'double', 'string', 'bytes']);

/** The result type every overload of a function declares, when they agree on a scalar. */
function declaredResult(name: string): string {
  const results = new Set<string>();
  for (const f of kubernetesCelEnv().funcs.find(name) ?? []) results.add(f.result.name);
  const [only] = results;
  return results.size === 1 && RESULT_SCALARS.has(only!) ? only! : 'dyn';
}

/** The operand types arithmetic accepts when both are plain scalars: the same type, of these. */
function arithmeticTypes(op: string): Set<string> {
  if (op === '_+_') return new Set(['int', 'uint', 'double', 'string', 'bytes']);
  if (op === '_%_') return new Set(['int', 'uint']);
  return NUMERIC;
}
const NUMERIC = new Set(['int', 'uint', 'double']);
const SCALARS = new Set(['int', 'uint', 'double', 'string', 'bool', 'bytes']);

/**
 * The overloads cel-go's checker certainly finds missing, in its words: a string method on a
 * number or bool, `size` of a number or bool, comparing a string or bool with another scalar type
 * (numbers compare across int, uint and double), arithmetic on mixed or unsupported scalar types
 * (`'a' + 1`, `1 + 1.0`, `'a' - 'b'`), `&&`, `||`, `!` and a `?:` condition on a scalar other than
 * bool, and `in` a scalar. Anything less certain is left to run time.
 */
function overloadMismatch(
  name: string,
  target: StaticType | undefined,
  args: StaticType[],
): string | undefined {
  const types = args.map(primitive);
  const on = target === undefined ? undefined : primitive(target);
  // An error-typed operand was reported already; cel-go assigns it to any parameter.
  if (on === 'error' || types.includes('error')) return undefined;
  const missing = `found no matching overload for '${name}' applied to '${on ? `${on}.` : ''}(${types.join(', ')})'`;
  const notText = (t: string | undefined) =>
    !!t && SCALARS.has(t) && t !== 'string' && t !== 'bytes';
  if (on && STRING_METHODS.has(name) && notText(on)) return missing;
  if (name === 'size' && notText(on ?? types[0])) return missing;
  if (LOGICAL.has(name) && types.some((t) => SCALARS.has(t) && t !== 'bool')) return missing;
  if (name === '_?_:_' && SCALARS.has(types[0]!) && types[0] !== 'bool') return missing;
  if (name === '@in' && types[1] && SCALARS.has(types[1])) return missing;
  const [a, b] = types;
  if (name === '-_')
    return a && SCALARS.has(a) && a !== 'int' && a !== 'double' ? missing : undefined;
  if (!a || !b || !SCALARS.has(a) || !SCALARS.has(b)) return undefined;
  if (ARITHMETIC.has(name)) return a === b && arithmeticTypes(name).has(a) ? undefined : missing;
  if (!COMPARISONS.has(name) || a === b || (NUMERIC.has(a) && NUMERIC.has(b))) return undefined;
  return missing;
}

function constType(c: string | undefined): string {
  switch (c) {
    case 'boolValue':
      return 'bool';
    case 'int64Value':
      return 'int';
    case 'uint64Value':
      return 'uint';
    case 'doubleValue':
      return 'double';
    case 'stringValue':
      return 'string';
    case 'bytesValue':
      return 'bytes';
    case 'nullValue':
      return 'null_type';
    default:
      return 'dyn';
  }
}

/** The type of `operand.field`, undefined when the schema has no such field. */
function selectField(operand: StaticType, field: string): StaticType | undefined {
  if (typeof operand === 'string') return 'dyn';
  if (operand.type !== 'object') return 'dyn';
  // A CEL keyword names its escaped field too (recognizeKeywordAsFieldName, on since 1.31):
  // `metadata.namespace` is the field `__namespace__`.
  const keyword = RESERVED.has(field) ? `__${field}__` : undefined;
  for (const [name, p] of Object.entries(operand.properties ?? {})) {
    const escaped = escapeCelName(name);
    if (escaped === field || (keyword && escaped === keyword)) return p;
  }
  if (isObject(operand.additionalProperties)) return operand.additionalProperties;
  return undefined;
}

/** The type of `operand[i]`: a list's element, a map's value; dyn for anything else. */
function indexType(operand: StaticType): StaticType {
  if (typeof operand === 'string') return operand === 'error' ? 'error' : 'dyn';
  if (operand.type === 'array') return operand.items ?? 'dyn';
  if (operand.type === 'object' && isObject(operand.additionalProperties))
    return operand.additionalProperties;
  return 'dyn';
}

function elementType(range: StaticType): StaticType {
  if (typeof range === 'string') return range === 'error' ? 'error' : 'dyn';
  if (range.type === 'array') return range.items ?? 'dyn';
  if (range.type === 'object') return 'string';
  return 'dyn';
}

const RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(
    ' ',
  ),
);

/**
 * A property's name as rules spell it (apiserver cel.Escape): CEL keywords as `__namespace__`,
 * `__` `.` `-` `/` as `__underscores__` `__dot__` `__dash__` `__slash__`; undefined for names that
 * cannot be spelled (a leading digit, other characters), which rules then cannot reach.
 */
export function escapeCelName(name: string): string | undefined {
  if (!name || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (/[^a-zA-Z0-9_./-]/.test(name)) return undefined;
  const words: Record<string, string> = {
    '.': 'dot',
    '-': 'dash',
    '/': 'slash',
    __: 'underscores',
  };
  return name.replace(/__|[./-]/g, (m) => `__${words[m]}__`);
}

interface Checked {
  program?: CelProgram;
  type: string;
  usesOldSelf: boolean;
  error?: string;
}

/** What CEL's ANTLR grammar accepts where an operand begins (the first set of `unary`). */
const OPERAND_START =
  "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

/**
 * cel-go's syntax error for an expression that ends with an operator (`self.x +`, `a &&`,
 * `b ? c :`), where cel-es's parser stops at the operator: ANTLR reads on to the end and reports
 * the missing operand there. Other syntax errors keep cel-es's words (ANTLR's error recovery is
 * not ported).
 */
function missingOperand(source: string, offset: number): string | undefined {
  // The source ends with a binary operator or a conditional's `?` or `:`, after where cel-es stopped.
  if (!/(\|\||&&|==|!=|<=|>=|[-+*/%<>?:]|\bin)\s*$/.test(source.slice(offset))) return undefined;
  return renderIssue(
    source,
    source.length,
    `Syntax error: mismatched input '<EOF>' expecting ${OPERAND_START}`,
  );
}

/** Parses, checks and plans one expression; errors are cel-go's issue text. */
function compileExpression(source: string, vars: Map<string, StaticType>): Checked {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (err) {
    const loc = (err as { location?: { start?: { offset?: number } } }).location;
    const msg = (err as { rawMessage?: string }).rawMessage ?? (err as Error).message;
    const offset = loc?.start?.offset ?? 0;
    const eof = missingOperand(source, offset);
    return {
      type: 'dyn',
      usesOldSelf: false,
      error: eof ?? renderIssue(source, offset, `Syntax error: ${msg}`),
    };
  }
  const positions = Object.fromEntries(
    Object.entries(parsed.sourceInfo?.positions ?? {}).map(([id, off]) => [id, Number(off)]),
  );
  const checker = new Checker(source, positions, vars);
  const type = primitive(checker.check(parsed.expr));
  if (checker.errors.length)
    return { type: 'dyn', usesOldSelf: false, error: renderIssues(source, checker.errors) };
  const program = plan(kubernetesCelEnv(), parsed) as CelProgram;
  return { program, type, usesOldSelf: checker.usesOldSelf };
}

/** cel-go's Issues.String(): every error, ordered by line and column, one after another. */
function renderIssues(source: string, errors: CompileError[]): string {
  const at = (e: CompileError) => {
    const before = source.slice(0, e.offset);
    return [before.split('\n').length, e.offset - before.lastIndexOf('\n')];
  };
  return [...errors]
    .sort((a, b) => {
      const [la, ca] = at(a);
      const [lb, cb] = at(b);
      return la! - lb! || ca! - cb!;
    })
    .map((e) => renderIssue(source, e.offset, e.message))
    .join('\n');
}

/** What checkExpression found: the issues as cel-go prints them, and the result type. */
export interface ExpressionCheck {
  /** cel-go's Issues.String() when the checker reports errors. */
  issues?: string;
  /** The result's primitive type name (`bool`, `string`, `map`, `dyn`, ...). */
  type: string;
}

/**
 * Type-checks one expression with `vars` declared. An expression cel-es cannot parse is left
 * alone: this serves expressions the apiserver admitted, so cel-go parses them (cel-es lacks some
 * of its syntax, such as optional field selection).
 */
export function checkExpression(
  source: string,
  vars: Map<string, StaticType>,
  references: References,
): ExpressionCheck {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch {
    return { type: 'dyn' };
  }
  const positions = Object.fromEntries(
    Object.entries(parsed.sourceInfo?.positions ?? {}).map(([id, off]) => [id, Number(off)]),
  );
  const checker = new Checker(source, positions, vars, references);
  const type = primitive(checker.check(parsed.expr));
  return checker.errors.length
    ? { issues: renderIssues(source, checker.errors), type: 'dyn' }
    : { type };
}

/** Compiles the rules of one schema node (compilation.go's Compile). */
export function compileRules(node: JSONSchemaProps, isResourceRoot: boolean): CompiledRule[] {
  const self = isResourceRoot ? withTypeAndObjectMeta(node) : node;
  return (node['x-kubernetes-validations'] ?? []).map((rule) => compileRule(rule, self, node));
}

function compileRule(rule: ValidationRule, self: JSONSchemaProps, node: JSONSchemaProps) {
  const out: CompiledRule = { rule, usesOldSelf: false };
  if (!rule.rule?.trim()) return out;
  // optionalOldSelf rules see oldSelf as an optional, which this checker does not model.
  const vars = new Map<string, StaticType>([
    ['self', self],
    ['oldSelf', rule.optionalOldSelf ? 'dyn' : self],
  ]);
  const c = compileExpression(rule.rule, vars);
  out.usesOldSelf = c.usesOldSelf;
  if (c.error) out.error = `compilation failed: ${c.error}`;
  else if (c.type !== 'bool' && c.type !== 'dyn')
    out.error = 'cel expression must evaluate to a bool';
  else out.program = c.program;
  if (rule.messageExpression?.trim()) {
    const m = compileExpression(rule.messageExpression, vars);
    if (m.error) out.messageExpressionError = `messageExpression compilation failed: ${m.error}`;
    else if (m.type !== 'string' && m.type !== 'dyn')
      out.messageExpressionError = 'messageExpression must evaluate to a string';
    else out.messageProgram = m.program;
  }
  if (rule.fieldPath) {
    const p = normalizeFieldPath(rule.fieldPath, node);
    if (p !== undefined) out.fieldPath = p;
  }
  return out;
}

/**
 * ValidFieldPath: a rule's fieldPath (`.spec.replicas`, `.labels['app']`) resolved against the
 * node's schema and rendered as a field path (`spec.replicas`, `labels[app]`); undefined when it
 * does not name a field of the schema.
 */
export function normalizeFieldPath(path: string, node: JSONSchemaProps): string | undefined {
  const tokens = path.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let schema: JSONSchemaProps | undefined = node;
  let out = '';
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok === '.') continue;
    let name = tok;
    let named = true;
    if (tok === '[') {
      const quoted = tokens[++i];
      if (tokens[++i] !== ']' || !quoted || !/^'.*'$/s.test(quoted)) return undefined;
      name = quoted.slice(1, -1).replace(/\\(.)/g, '$1');
      if (!schema?.properties) {
        if (!isObject(schema?.additionalProperties)) return undefined;
        named = false;
      }
    }
    if (named) {
      schema = schema?.properties?.[name];
      if (!schema) return undefined;
      out = out ? `${out}.${name}` : name;
    } else {
      schema = schema!.additionalProperties as JSONSchemaProps;
      out = `${out}[${name}]`;
    }
  }
  return out || undefined;
}
