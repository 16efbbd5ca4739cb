/**
 * A Go manager's output as a person reads it: zap's JSON lines as one readable line each
 * (`formatZapEntry`), other lines as they are, and a hot loop's repeats folded (`LogRepeats`,
 * said once a window). Run Go Operator writes it to its output channel, Debug Go Operator to the
 * session's Debug Console, where vscode-go users look for their program's output.
 */
import { formatZapEntry, type ZapEntry } from '../../runtime/zaplog';
import { LogRepeats, zapShape } from './logrepeats';

export class ManagerLog {
  private readonly repeats: LogRepeats;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly show: (lines: string[]) => void,
    private readonly now: () => number = Date.now,
    windowMs = 5_000,
  ) {
    this.repeats = new LogRepeats(windowMs);
    // A fold is said at the latest a window later, even when the manager has gone quiet.
    this.timer = setInterval(() => this.flush(), windowMs);
    this.timer.unref?.();
  }

  /** A zap entry, shown unless it repeats one shown less than a window ago. */
  entry(e: ZapEntry): void {
    this.show(this.repeats.feed(zapShape(e), formatZapEntry(e), this.now()));
  }

  /** A line that is not zap's (a panic, fmt.Println): shown as it is, after what was folded. */
  plain(text: string): void {
    this.show([...this.repeats.flush(this.now()), text]);
  }

  /** Says what was folded since the last line shown. */
  flush(): void {
    const lines = this.repeats.flush(this.now());
    if (lines.length) this.show(lines);
  }

  dispose(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
