import { diffLines } from 'diff';
import { h } from './dom';

/** Unchanged lines kept around a change, as `diff -U3` keeps them. */
const CONTEXT = 3;

type Kind = 'add' | 'del' | 'same';
interface Line {
  kind: Kind;
  text: string;
}

/**
 * Folds a run of unchanged lines opened by the user stay open across renders: the panel renders
 * again at every phase, and a fold that snapped shut under the reader's eyes would lose their place.
 * Keyed by diff title and the run's first line.
 */
const opened = new Set<string>();

/**
 * Before/after YAML as a unified line diff, added and removed lines marked for the eye and for
 * screen readers. Unchanged runs longer than the context around a change fold into one
 * "⋯ N unchanged lines" row that opens on a click: a status write shows its few lines, not the
 * whole object.
 */
export function yamlDiff(title: string, before: string, after: string): HTMLElement {
  const lines: Line[] = [];
  for (const part of diffLines(before, after)) {
    const kind: Kind = part.added ? 'add' : part.removed ? 'del' : 'same';
    for (const text of part.value.replace(/\n$/, '').split('\n')) lines.push({ kind, text });
  }
  const rows: HTMLElement[] = [];
  for (let i = 0; i < lines.length;) {
    if (lines[i].kind !== 'same') {
      rows.push(row(lines[i++]));
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end].kind === 'same') end++;
    rows.push(...unchanged(title, lines, i, end));
    i = end;
  }
  if (!before && !after) rows.push(h('div', { class: 'line same' }, '(nothing)'));
  return h(
    'section',
    { class: 'diff' },
    h('h4', {}, title),
    h('div', { class: 'diff-body' }, ...rows),
  );
}

/** The unchanged run `lines[start, end)`: the context next to changes shown, the middle folded. */
function unchanged(title: string, lines: Line[], start: number, end: number): HTMLElement[] {
  const lead = start > 0 ? CONTEXT : 0; // after a change
  const trail = end < lines.length ? CONTEXT : 0; // before a change
  if (end - start <= lead + trail + 1) return lines.slice(start, end).map(row);
  const key = `${title}\u0000${start}`;
  const hidden = lines.slice(start + lead, end - trail);
  const fold = h(
    'details',
    { class: 'fold', open: opened.has(key) },
    h('summary', {}, `⋯ ${hidden.length} unchanged lines`),
    ...hidden.map(row),
  );
  fold.addEventListener('toggle', () => {
    if ((fold as HTMLDetailsElement).open) opened.add(key);
    else opened.delete(key);
  });
  return [
    ...lines.slice(start, start + lead).map(row),
    fold,
    ...lines.slice(end - trail, end).map(row),
  ];
}

function row({ kind, text }: Line): HTMLElement {
  const mark = kind === 'add' ? '+' : kind === 'del' ? '-' : ' ';
  return h(
    'div',
    {
      class: `line ${kind}`,
      'aria-label':
        kind === 'same' ? undefined : `${kind === 'add' ? 'added' : 'removed'}: ${text}`,
    },
    `${mark} ${text}`,
  );
}
