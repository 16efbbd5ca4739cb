/**
 * A hold on a real cluster: how long the manager has been stopped, and what that sets off (a
 * leader Lease lost, webhook calls timing out), counted every second while the hold lasts. The
 * embedded cluster's clock stands still while held, so it has no such banner.
 */
import { holdLines } from '../../src/vscode/model/holdsafety';
import { h } from './dom';
import type { View } from './view';

let ticker: ReturnType<typeof setInterval> | undefined;

export function holdBanner(v: View): HTMLElement | null {
  if (ticker !== undefined) clearInterval(ticker);
  ticker = undefined;
  const hold = v.state.hold;
  if (!hold) return null;
  const held = h('p', { class: 'hold-time' });
  const warnings = hold.warnings.map(() => h('p', { class: 'hold-warning' }));
  const tick = () => {
    const lines = holdLines(hold, Date.now());
    held.textContent = lines.held;
    lines.warnings.forEach((w, i) => {
      warnings[i].textContent = w.text;
      warnings[i].className = `hold-warning hold-${w.kind}${w.fired ? ' hold-fired' : ''}`;
    });
  };
  tick();
  ticker = setInterval(tick, 1000);
  return h('div', { class: 'hold', role: 'status', 'aria-live': 'off' }, held, ...warnings);
}
