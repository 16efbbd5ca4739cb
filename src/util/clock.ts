/**
 * Time as client-go's k8s.io/utils/clock sees it: everything that waits (delaying queue,
 * requeueAfter, rate limiters, the fake cluster's controllers) asks a Clock, so a simulation can
 * swap the wall clock for a virtual one and run an hour of controller time in a moment.
 */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Milliseconds since the clock's epoch (Unix epoch for the real clock, t=0 for a virtual one). */
  now(): number;
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
}

/** The wall clock; timers are Node timers, unref'd so they never keep a CLI alive on their own. */
export class RealClock implements Clock {
  private nextId = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, delayMs),
    );
    t.unref?.();
    this.timers.set(id, t);
    return { id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const t = this.timers.get(handle.id);
    if (t) clearTimeout(t);
    this.timers.delete(handle.id);
  }
}

interface PendingTimer {
  id: number;
  due: number;
  seq: number;
  fn: () => void;
}

/**
 * A virtual clock: time moves only when told to. Timers due at the same instant fire in the order
 * they were set, so a run is exact and repeatable. Between timers the clock yields to the
 * microtask and macrotask queues, so async work started by one timer settles before the next fires.
 */
export class VirtualClock implements Clock {
  private current: number;
  private nextId = 1;
  private seq = 0;
  private readonly pending = new Map<number, PendingTimer>();
  /** While frozen (e.g. the stepper holds a reconcile) advance() waits instead of moving time. */
  private frozenBy = 0;
  private thawWaiters: Array<() => void> = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.pending.set(id, { id, due: this.current + Math.max(0, delayMs), seq: this.seq++, fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle) this.pending.delete(handle.id);
  }

  /** Number of timers not yet fired. */
  get pendingTimers(): number {
    return this.pending.size;
  }

  /** When the next timer is due, or undefined when none is pending. */
  nextDue(): number | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.pending.values()) if (!best || before(t, best)) best = t;
    return best?.due;
  }

  freeze(): () => void {
    this.frozenBy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.frozenBy--;
      if (this.frozenBy === 0) {
        const waiters = this.thawWaiters;
        this.thawWaiters = [];
        for (const w of waiters) w();
      }
    };
  }

  get frozen(): boolean {
    return this.frozenBy > 0;
  }

  /**
   * Fires every timer due up to now+ms in due order, settling async work after each one, and
   * leaves the clock at now+ms. Returns the number of timers fired.
   */
  async advance(ms: number): Promise<number> {
    return this.runUntil(this.current + ms);
  }

  /** Like advance(), to an absolute time. */
  async runUntil(target: number): Promise<number> {
    let fired = 0;
    await settle();
    for (;;) {
      await this.waitThawed();
      const next = this.popDue(target);
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      next.fn();
      fired++;
      await settle();
    }
    await this.waitThawed();
    this.current = Math.max(this.current, target);
    return fired;
  }

  /**
   * Lets `ms` of controller time pass now, frozen or not, firing the timers due on the way: an
   * in-process call that takes time (an injected latency) is time the reconcile spends, while
   * the reconcile itself keeps the clock frozen — nothing else would move it.
   */
  async elapse(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const next = this.popDue(target);
      if (!next) break;
      this.current = Math.max(this.current, next.due);
      next.fn();
      await settle();
    }
    this.current = Math.max(this.current, target);
  }

  private popDue(target: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.pending.values()) {
      if (t.due <= target && (!best || before(t, best))) best = t;
    }
    if (best) this.pending.delete(best.id);
    return best;
  }

  private waitThawed(): Promise<void> {
    if (this.frozenBy === 0) return Promise.resolve();
    return new Promise((resolve) => this.thawWaiters.push(resolve));
  }
}

function before(a: PendingTimer, b: PendingTimer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

/** Lets pending promise chains and I/O callbacks run before time moves on. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
