import { VirtualClock } from './clock';

/**
 * Drives a VirtualClock at wall-clock pace. The editor runs the fake cluster and the runtime on a
 * virtual clock moved by this pacer, so that when the stepper holds a reconcile (and freezes the
 * clock) nothing else moves either: pods do not turn ready and requeueAfter timers do not fire
 * behind the user's back. Frozen time is skipped, not caught up.
 */
export class ClockPacer {
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private busy = false;
  /** Sub-millisecond wall time not yet given to the clock: virtual time moves in whole ms. */
  private carry = 0;

  constructor(
    readonly clock: VirtualClock,
    private readonly intervalMs = 25,
    private readonly now: () => number = () => performance.now(),
  ) {}

  start(): void {
    if (this.timer) return;
    this.last = this.now();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Moves the clock by the wall time since the last tick, unless it is frozen. */
  async tick(): Promise<void> {
    const now = this.now();
    const elapsed = now - this.last;
    this.last = now;
    if (this.busy || this.clock.frozen) return;
    const step = Math.min(elapsed + this.carry, 1000);
    const whole = Math.floor(step);
    this.carry = step - whole;
    this.busy = true;
    try {
      // A long pause of the host (a breakpoint in the extension host, a suspended laptop) is not
      // replayed as a burst of controller time.
      await this.clock.advance(whole);
    } finally {
      this.busy = false;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
