/**
 * Label and field selectors as k8s.io/apimachinery/pkg/labels and pkg/fields parse them: the
 * same operators (=, ==, !=, in, notin, exists, !exists, gt, lt) and the same parse errors, which
 * the API returns as 400 BadRequest.
 */
import { newBadRequest } from './errors';

type Op = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

export type LabelSelector = Requirement[];

const KEY_RE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Tokens of the selector grammar. */
function tokenize(s: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === ',' || c === '(' || c === ')') {
      out.push(c);
      i++;
    } else if (s.startsWith('==', i) || s.startsWith('!=', i)) {
      out.push(s.slice(i, i + 2));
      i += 2;
    } else if (c === '=' || c === '!' || c === '>' || c === '<') {
      out.push(c);
      i++;
    } else {
      let j = i;
      while (j < s.length && !' \t,()=!<>'.includes(s[j])) j++;
      out.push(s.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** An error inside one requirement (Parser.parseRequirement), as parse() wraps it. */
function parseError(msg: string): never {
  throw newBadRequest(`unable to parse requirement: ${msg}`);
}

/** An error between requirements (Parser.parse), which it answers unwrapped. */
function selectorError(msg: string): never {
  throw newBadRequest(msg);
}

/** Parses a label selector; throws a 400 StatusError on bad syntax. An empty selector matches everything. */
export function parseLabelSelector(input: string | undefined): LabelSelector {
  if (!input || !input.trim()) return [];
  const t = tokenize(input);
  const reqs: Requirement[] = [];
  let i = 0;
  const word = (): string => {
    const w = t[i];
    if (w === undefined || ',()=!<>'.includes(w[0]) || w === '==' || w === '!=') {
      parseError(`found '${w ?? ''}', expected: identifier`);
    }
    i++;
    return w;
  };
  const checkKey = (k: string): void => {
    if (!KEY_RE.test(k) || k.length > 317) {
      parseError(
        `invalid label key "${k}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      );
    }
  };
  const checkValue = (v: string): void => {
    if (!VALUE_RE.test(v) || v.length > 63) {
      parseError(
        `values[0][${v}]: Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      );
    }
  };
  while (i < t.length) {
    const head = t[i];
    if (head !== '!' && (',()=<>'.includes(head[0]) || head === '==' || head === '!='))
      selectorError(`found '${head}', expected: !, identifier, or 'end of string'`);
    if (t[i] === '!') {
      i++;
      const key = word();
      checkKey(key);
      reqs.push({ key, op: '!', values: [] });
    } else {
      const key = word();
      checkKey(key);
      const op = t[i];
      if (op === undefined || op === ',') {
        reqs.push({ key, op: 'exists', values: [] });
      } else if (op === '=' || op === '==' || op === '!=') {
        i++;
        let v = '';
        if (t[i] !== undefined && t[i] !== ',') v = word();
        checkValue(v);
        reqs.push({ key, op: op === '!=' ? '!=' : '=', values: [v] });
      } else if (op === 'in' || op === 'notin') {
        i++;
        if (t[i] !== '(') parseError(`found '${t[i] ?? ''}' expected: '('`);
        i++;
        const values: string[] = [];
        while (t[i] !== ')') {
          if (t[i] === undefined) parseError(`found '', expected: ')'`);
          if (t[i] === ',') {
            i++;
            continue;
          }
          const v = word();
          checkValue(v);
          values.push(v);
        }
        i++;
        reqs.push({ key, op, values });
      } else if (op === '>' || op === '<' || op === 'gt' || op === 'lt') {
        i++;
        const v = word();
        if (!/^-?\d+$/.test(v))
          parseError(`for 'Gt', 'Lt' operators, the value must be an integer`);
        reqs.push({ key, op: op === '>' || op === 'gt' ? 'gt' : 'lt', values: [v] });
      } else {
        parseError(`found '${op}', expected: in, notin, =, ==, !=, gt, lt`);
      }
    }
    if (i < t.length) {
      if (t[i] !== ',') selectorError(`found '${t[i]}', expected: ',' or 'end of string'`);
      i++;
      const next = t[i];
      if (
        next === undefined ||
        (next !== '!' && (',()=<>'.includes(next[0]) || next === '==' || next === '!='))
      )
        selectorError(`found '${next ?? ''}', expected: identifier after ','`);
    }
  }
  return reqs;
}

export function matchesLabels(
  sel: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  for (const r of sel) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels![r.key] : undefined;
    switch (r.op) {
      case '=':
        if (v !== r.values[0]) return false;
        break;
      case '!=':
        if (v === r.values[0]) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (v === undefined || !/^-?\d+$/.test(v)) return false;
        const n = Number(v);
        const lim = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > lim) : !(n < lim)) return false;
        break;
      }
    }
  }
  return true;
}

/** metav1.LabelSelector (matchLabels + matchExpressions) to requirements, as LabelSelectorAsSelector does. */
export function fromLabelSelector(sel: unknown): LabelSelector | undefined {
  if (!sel || typeof sel !== 'object') return undefined;
  const s = sel as {
    matchLabels?: Record<string, string>;
    matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
  };
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(s.matchLabels ?? {}))
    reqs.push({ key: k, op: '=', values: [v] });
  for (const e of s.matchExpressions ?? []) {
    const op = ({ In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' } as const)[
      e.operator as 'In'
    ];
    if (op) reqs.push({ key: e.key, op, values: e.values ?? [] });
  }
  return reqs;
}

export function formatLabelSelector(sel: LabelSelector): string {
  return sel
    .map((r) => {
      switch (r.op) {
        case '=':
          return `${r.key}=${r.values[0]}`;
        case '!=':
          return `${r.key}!=${r.values[0]}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.op} (${r.values.join(',')})`;
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        default:
          return `${r.key}${r.op === 'gt' ? '>' : '<'}${r.values[0]}`;
      }
    })
    .join(',');
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** fields.ParseSelector: `a=b,c!=d`, with `\,` `\=` `\\` escapes. */
export function parseFieldSelector(input: string | undefined): FieldRequirement[] {
  if (!input || !input.trim()) return [];
  // Split on unescaped commas, then on the first unescaped operator.
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === '\\' && i + 1 < input.length) {
      cur += c + input[++i];
    } else if (c === ',') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  const unescape = (s: string) => s.replace(/\\(.)/g, '$1');
  return parts.map((p) => {
    let i = 0;
    for (; i < p.length; i++) {
      if (p[i] === '\\') {
        i++;
        continue;
      }
      if (p[i] === '=' || (p[i] === '!' && p[i + 1] === '=')) break;
    }
    if (i >= p.length) throw newBadRequest(`invalid selector: '${input}'; can't understand '${p}'`);
    const op = p[i] === '!' ? '!=' : p[i + 1] === '=' ? '==' : '=';
    return {
      field: unescape(p.slice(0, i)).trim(),
      op: op === '!=' ? '!=' : '=',
      value: unescape(p.slice(i + op.length)),
    };
  });
}

export function matchesFields(sel: FieldRequirement[], fields: Record<string, string>): boolean {
  for (const r of sel) {
    const v = fields[r.field] ?? '';
    if (r.op === '=' ? v !== r.value : v === r.value) return false;
  }
  return true;
}
