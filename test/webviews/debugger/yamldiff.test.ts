import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { yamlDiff } from '../../../webviews/debugger/yamldiff';
import { text, useDom } from './dom';

useDom();

const lines = (el: Element) =>
  Array.from(el.querySelectorAll('.line')).map((l) => ({
    kind: ['add', 'del', 'same'].find((k) => l.classList.contains(k)),
    label: l.getAttribute('aria-label'),
    text: l.textContent,
  }));

describe('the YAML diff', () => {
  it('marks removed and added lines for the eye and for screen readers, and keeps the rest', () => {
    const diff = yamlDiff('shop', 'a: 1\nb: 2\n', 'a: 1\nb: 3\n');
    assert.equal(text(diff.querySelector('h4')), 'shop');
    assert.deepEqual(lines(diff), [
      { kind: 'same', label: null, text: '  a: 1' },
      { kind: 'del', label: 'removed: b: 2', text: '- b: 2' },
      { kind: 'add', label: 'added: b: 3', text: '+ b: 3' },
    ]);
  });

  const numbered = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `k${from + i}: v`).join('\n') + '\n';

  it('folds a long unchanged run between changes, keeping three lines of context each side', () => {
    const before = `a: 1\n${numbered(0, 20)}z: 1\n`;
    const after = `a: 2\n${numbered(0, 20)}z: 2\n`;
    const diff = yamlDiff('status', before, after);
    const shown = Array.from(diff.querySelectorAll('.diff-body > .line')).map((l) => l.textContent);
    assert.deepEqual(shown, [
      '- a: 1',
      '+ a: 2',
      '  k0: v',
      '  k1: v',
      '  k2: v',
      '  k17: v',
      '  k18: v',
      '  k19: v',
      '- z: 1',
      '+ z: 2',
    ]);
    const fold = diff.querySelector('details.fold');
    assert.equal(text(fold?.querySelector('summary')), '⋯ 14 unchanged lines');
    assert.equal(fold?.querySelectorAll('.line').length, 14, 'the folded lines are there to open');
    assert.equal(fold?.hasAttribute('open'), false);
  });

  it('folds an unchanged object whole, and keeps short runs as they are', () => {
    const same = numbered(0, 30);
    const whole = yamlDiff('as read → now', same, same);
    assert.equal(whole.querySelectorAll('.diff-body > .line').length, 0);
    assert.equal(text(whole.querySelector('summary')), '⋯ 30 unchanged lines');
    const short = yamlDiff('x', `a: 1\n${numbered(0, 7)}z: 1\n`, `a: 2\n${numbered(0, 7)}z: 2\n`);
    assert.equal(short.querySelector('details'), null);
  });

  it('keeps a fold the reader opened open when the panel renders again', () => {
    const before = `a: 1\n${numbered(0, 20)}`;
    const after = `a: 2\n${numbered(0, 20)}`;
    const first = yamlDiff('kept', before, after).querySelector('details') as HTMLDetailsElement;
    first.open = true;
    first.dispatchEvent(
      new (first.ownerDocument.defaultView as unknown as typeof globalThis).Event('toggle'),
    );
    const again = yamlDiff('kept', before, after).querySelector('details');
    assert.equal(again?.hasAttribute('open'), true);
    assert.equal(
      yamlDiff('other', before, after).querySelector('details')?.hasAttribute('open'),
      false,
    );
  });

  it('shows a created object as all added', () => {
    const diff = yamlDiff('created', '', 'a: 1\n');
    assert.deepEqual(
      lines(diff).map((l) => l.kind),
      ['add'],
    );
  });

  it('says (nothing) when there is nothing on either side', () => {
    assert.match(text(yamlDiff('refused', '', '')), /\(nothing\)/);
  });

  it('shows object text as text, never as markup', () => {
    const diff = yamlDiff('x', '', 'name: <img src=x onerror=alert(1)>\n');
    assert.equal(diff.querySelector('img'), null);
    assert.match(text(diff), /<img src=x/);
  });
});
