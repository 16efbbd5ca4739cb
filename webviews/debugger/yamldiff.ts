import { diffLines } from 'diff';
import { h } from './dom';

/** Before/after YAML as a unified line diff, added and removed lines marked for the eye and for screen readers. */
export function yamlDiff(title: string, before: string, after: string): HTMLElement {
  const rows: HTMLElement[] = [];
  for (const part of diffLines(before, after)) {
    const kind = part.added ? 'add' : part.removed ? 'del' : 'same';
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) {
      rows.push(
        h(
          'div',
          {
            class: `line ${kind}`,
            'aria-label':
              kind === 'same' ? undefined : `${kind === 'add' ? 'added' : 'removed'}: ${line}`,
          },
          `${mark} ${line}`,
        ),
      );
    }
  }
  if (!before && !after) rows.push(h('div', { class: 'line same' }, '(nothing)'));
  return h(
    'section',
    { class: 'diff' },
    h('h4', {}, title),
    h('pre', { class: 'diff-body' }, ...rows),
  );
}
