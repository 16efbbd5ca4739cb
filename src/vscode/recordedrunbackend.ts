/**
 * The Reconcile Debugger's backend for a recorded run (a robustness report case): the panel shows
 * the run's reconciles and findings; picking one in the timeline or a finding shows it, Restart
 * goes back to where it opened. Step, Continue and Pause have nothing to act on: the run is over.
 */
import * as vscode from 'vscode';
import type { DebuggerState, WebviewMessage } from '../protocol';
import type { DebuggerBackend } from './debuggerpanel';
import type { RecordedRunModel } from './model/recordedrun';

export class RecordedRunBackend implements DebuggerBackend, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<DebuggerState>();

  constructor(private readonly model: RecordedRunModel) {}

  state(): DebuggerState {
    return this.model.state();
  }

  onDidChangeState(listener: (s: DebuggerState) => void): vscode.Disposable {
    return this.changed.event(listener);
  }

  handle(msg: WebviewMessage): void {
    if (msg.type === 'restart') this.model.restart();
    const moved =
      msg.type === 'restart' ||
      (msg.type === 'inspect' && this.model.inspect(msg.id)) ||
      (msg.type === 'openFinding' && this.model.openFinding(msg.index));
    if (moved) this.changed.fire(this.model.state());
  }

  dispose(): void {
    this.changed.dispose();
  }
}
