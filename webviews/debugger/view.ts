/**
 * What every part of the panel renders from: the latest state, a way to tell the extension, and
 * the panel's clock formatting. Passed explicitly so each part is a plain function of it.
 */
import type { DebuggerState, WebviewMessage } from '../../src/protocol';

export interface View {
  state: DebuggerState;
  post(msg: WebviewMessage): void;
  /** A clock time as shown in the panel, relative to the session's start. */
  rel(ms: number): string;
}
