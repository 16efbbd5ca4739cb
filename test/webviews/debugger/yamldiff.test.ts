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
