/**
 * The Reconcile Debugger's backend for the Go operator Run Go Operator runs: the panel follows
 * the manager's reconciles as they finish (model/observedrun.ts); the timeline and findings pick
 * one, Restart follows the newest again. Run Go Operator's poll calls `refresh`, which redraws
 * the panel only when what it shows may have changed (a reconcile finished, a late call arrived,
 * the findings or the manager's state changed).
 */
import * as vscode from 'vscode';
import type { DebuggerState, WebviewMessage } from '../protocol';
import type { DebuggerBackend } from './debuggerpanel';
import type { ObservedRunModel } from './model/observedrun';

export class ObservedRunBackend implements DebuggerBackend, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<DebuggerState>();
  private shown = '';

  /** `version` says what the panel's content depends on; it changes when that may have. */
  constructor(
    private readonly model: ObservedRunModel,
    private readonly version: () => string,
  ) {}

  state(): DebuggerState {
    this.shown = this.version();
    return this.model.state();
  }

  onDidChangeState(listener: (s: DebuggerState) => void): vscode.Disposable {
    return this.changed.event(listener);
  }

  refresh(): void {
    if (this.version() !== this.shown) this.changed.fire(this.state());
  }

  handle(msg: WebviewMessage): void {
    if (msg.type === 'restart') this.model.restart();
    if (msg.type === 'step' || msg.type === 'continue' || msg.type === 'pause')
      this.model.cannotHold();
    const moved =
      msg.type === 'restart' ||
      msg.type === 'step' ||
      msg.type === 'continue' ||
      msg.type === 'pause' ||
      (msg.type === 'inspect' && this.model.inspect(msg.id)) ||
      (msg.type === 'openFinding' && this.model.openFinding(msg.index));
    if (moved) this.changed.fire(this.state());
  }

  dispose(): void {
    this.changed.dispose();
  }
}
