/**
 * The Reconcile Debugger panel. It renders the DebuggerState the extension sends and posts the
 * user's intents back; it holds no reconcile logic of its own. On load it says `ready` and the
 * host answers with the whole state, so hiding and re-showing the panel loses nothing. Each state
 * is also saved with `setState` (as a DebuggerSnapshot): after a window reload VS Code hands it to
 * the extension, which brings the panel back saying what it showed. The snapshot keeps the tab
 * shown, so a reload of the webview (or of the window) opens the same tab.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import 'uplot/dist/uPlot.min.css';
import '../base.css';
import './debugger.css';
import {
  debuggerSnapshot,
  emptyDebuggerState,
  parseDebuggerSnapshot,
  savedTab,
  type DebuggerSnapshot,
  type DebuggerState,
  type HostMessage,
  type WebviewMessage,
} from '../../src/protocol';
import { callsPane, chartsPane, objectsPane, requestPane, resultPane, timelinePane } from './panes';
import {
  faultControls,
  findingsBanner,
  outcomeBreakpoints,
  pipeline,
  startAgain,
  statusMessage,
  toolbar,
} from './controls';
import { holdBanner } from './hold';
import { selectTab, selectedTab, tabBar, tabPanel } from './tabs';
import type { View } from './view';
import { h, replaceChildren } from './dom';
import { formatOffset } from '../../src/vscode/model/timeformat';
import { onThemeChange } from './charts';

interface VsCodeApi {
  postMessage(msg: WebviewMessage): void;
  setState(state: DebuggerSnapshot | null): void;
  getState(): unknown;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let state: DebuggerState = emptyDebuggerState();
// The tab the panel showed before it was reloaded.
selectTab(savedTab(vscode.getState()));

/** Saves what the panel shows, and its tab, for a reload (null while no session has run). */
function save(): void {
  vscode.setState(debuggerSnapshot(state, parseDebuggerSnapshot(vscode.getState()), selectedTab()));
}

/** When the user last pressed Step: the panel measures click-to-update itself (see render()). */
let stepPressedAt: number | undefined;
const post = (msg: WebviewMessage) => {
  if (msg.type === 'step') {
    stepPressedAt = performance.now();
    // A step is to be seen: back to the reconcile's tab (render() follows with the new hold).
    if (selectedTab() !== 'reconcile') {
      selectTab('reconcile');
      render();
      save();
    }
  }
  vscode.postMessage(msg);
};
/** Times are shown from the session's start: t+5.214s reads better than an epoch. */
const rel = (ms: number) => formatOffset(ms, state.origin);

const root = document.getElementById('app')!;
const view: View = {
  get state() {
    return state;
  },
  post,
  rel,
};

function render(): void {
  const cur = state.current;
  // Tells a reader (and the end-to-end tests) that a new hold arrived, even at the same phase.
  const hold = cur?.heldAt ? `${cur.id}:${cur.phases.length}:${cur.heldAt}` : '';
  if (stepPressedAt !== undefined && hold && hold !== root.dataset.hold) {
    root.dataset.stepMs = String(Math.round(performance.now() - stepPressedAt));
    stepPressedAt = undefined;
  }
  root.dataset.hold = hold;
  replaceChildren(
    root,
    toolbar(view),
    holdBanner(view),
    findingsBanner(view),
    pipeline(view, cur),
    outcomeBreakpoints(view),
    faultControls(view),
    tabBar(view, () => {
      render();
      save();
    }),
    selectedTab() === 'charts'
      ? tabPanel(chartsPane(view))
      : cur
        ? tabPanel(
            // Step-first: what the held step did (its API calls and the object's diff) on top,
            // then what Reconcile returned, then the request's facts and the key's timeline.
            h(
              'div',
              { class: 'grid' },
              callsPane(view, cur),
              objectsPane(view, cur),
              resultPane(view, cur),
              requestPane(view, cur),
              timelinePane(view),
            ),
          )
        : tabPanel(h('div', { class: 'empty' }, statusMessage(view, 'p'), startAgain(view))),
  );
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const msg = event.data;
  if (msg?.type === 'state') {
    state = msg.state;
    render();
    save();
  }
});

window.addEventListener('keydown', (e) => {
  const map: Record<string, WebviewMessage['type']> = { F10: 'step', F5: 'continue', F6: 'pause' };
  const type = e.key === 'F5' && e.ctrlKey && e.shiftKey ? 'restart' : map[e.key];
  if (type) {
    e.preventDefault();
    post({ type } as WebviewMessage);
  }
});

onThemeChange(render);
render();
post({ type: 'ready' });
