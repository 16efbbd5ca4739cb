/**
 * The subset of kubectl's JSONPath that printer columns use: `.a.b`, `[n]`, `['key']` and
 * `[?(@.type=="Ready")]` filters. Returns every match (a filter may match several items).
 */
import { isObject } from './patch';

export function evalJsonPath(root: unknown, path: string): unknown[] {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  let cur: unknown[] = [root];
  let i = 0;
  while (i < p.length && cur.length) {
    if (p[i] === '.') {
      i++;
      let j = i;
      while (j < p.length && p[j] !== '.' && p[j] !== '[') j++;
      const key = p.slice(i, j);
      i = j;
      if (!key) continue;
      cur = cur.flatMap((v) => (isObject(v) && key in v ? [v[key]] : []));
    } else if (p[i] === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) return [];
      const inner = p.slice(i + 1, end);
      i = end + 1;
      const f = /^\?\(@\.([\w.-]+)\s*(==|!=)\s*["']?([^"']*)["']?\)$/.exec(inner);
      if (f) {
        const [, k, op, val] = f;
        cur = cur.flatMap((v) =>
          Array.isArray(v)
            ? v.filter((x) => {
                const got = evalJsonPath(x, `.${k}`)[0];
                const eq = String(got) === val;
                return op === '==' ? eq : !eq;
              })
            : [],
        );
      } else if (inner === '*') {
        cur = cur.flatMap((v) => (Array.isArray(v) ? v : isObject(v) ? Object.values(v) : []));
      } else if (/^-?\d+$/.test(inner)) {
        const n = Number(inner);
        cur = cur.flatMap((v) =>
          Array.isArray(v) ? [v[n < 0 ? v.length + n : n]].filter((x) => x !== undefined) : [],
        );
      } else {
        const key = inner.replace(/^['"]|['"]$/g, '');
        cur = cur.flatMap((v) => (isObject(v) && key in v ? [v[key]] : []));
      }
    } else {
      i++;
    }
  }
  return cur;
}
