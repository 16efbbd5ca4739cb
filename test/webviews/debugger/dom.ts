/**
 * A browser DOM (happy-dom) for the panel's render functions, which build elements through the
 * global `document` as in the webview. Each test file installs one window and closes it after.
 */
import { after, before } from 'node:test';
import { Window } from 'happy-dom';
import type { DebuggerState, WebviewMessage } from '../../../src/protocol';
import type { View } from '../../../webviews/debugger/view';
import { ORIGIN } from './states';

export function useDom(): void {
  let window: Window | undefined;
  const saved = { document: globalThis.document };
  before(() => {
    window = new Window({ url: 'https://webview.invalid/' });
    globalThis.document = window.document as unknown as Document;
  });
  after(async () => {
    globalThis.document = saved.document;
    await window?.happyDOM.close();
  });
}

/**
 * A view of `state` that records what the panel posts. Times are shown as `@<ms since origin>`,
 * so a test sees which clock time a pane chose without depending on how the panel formats it.
 */
export function viewOf(state: DebuggerState): View & { posted: WebviewMessage[] } {
  const posted: WebviewMessage[] = [];
  return { state, post: (m) => posted.push(m), rel: (ms) => `@${ms - ORIGIN}`, posted };
}

/** The visible text of an element, whitespace collapsed. */
export function text(el: Element | null | undefined): string {
  return (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

export function click(el: Element | null | undefined): void {
  if (!el) throw new Error('nothing to click');
  el.dispatchEvent(
    new (el.ownerDocument.defaultView as unknown as typeof globalThis).Event('click'),
  );
}

/** The element labelled `label` (aria-label), e.g. a toolbar button. */
export function labelled(root: Element, label: string): Element | null {
  return root.querySelector(`[aria-label="${label}"]`);
}
