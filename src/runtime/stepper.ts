/**
 * The stepper holds a reconcile at a phase boundary, like a debugger at a breakpoint. Every phase
 * passes through gate() twice: on entry (before its API call happens) and on exit (once the
 * outcome is known). Phase breakpoints and stepping hold on entry; outcome breakpoints (Conflict,
 * Forbidden, NotFound, error, requeue) hold on exit. While held, the clock is frozen and every
 * other reconcile waits at its next boundary, so stepping never changes what happens — only when
 * you see it.
 */
import type { Clock } from '../util/clock';
import { Emitter } from './events';
import type { Phase, PhaseRecord, ReconcileTrace } from './trace';

export type OutcomeBreak = 'Conflict' | 'Forbidden' | 'NotFound' | 'error' | 'requeue';

export interface Breakpoints {
  phases?: Phase[];
  outcomes?: OutcomeBreak[];
  /** Request keys (`namespace/name`); when set, breakpoints apply to these requests only. */
  requests?: string[];
}

export type HoldReason = 'breakpoint' | 'step' | 'pause';

export interface HeldState {
  reason: HoldReason;
  when: 'enter' | 'exit';
  phase: PhaseRecord;
  /** A snapshot of the trace so far (safe to post to a webview). */
  trace: ReconcileTrace;
  /** Clock time at which it is held (frozen). */
  at: number;
}

export interface StepperEvents {
  held: HeldState;
  resumed: { mode: StepMode };
}

export type StepMode = 'running' | 'stepping' | 'paused';

interface FreezableClock extends Clock {
  freeze?: () => () => void;
}

export class Stepper extends Emitter<StepperEvents> {
  private breakpoints: Breakpoints = {};
  private mode: StepMode = 'running';
  private current: { state: HeldState; resume: () => void; thaw?: () => void } | undefined;
  /** Gates waiting behind the held one, in arrival order. */
  private waiting: Array<() => void> = [];
  /** Wall-clock ms of the holds that have ended, and when the current one began (heldMs). */
  private heldBefore = 0;
  private heldSince = 0;

  constructor(private readonly clock?: FreezableClock) {
    super();
  }

  setBreakpoints(b: Breakpoints): void {
    this.breakpoints = {
      phases: [...(b.phases ?? [])],
      outcomes: [...(b.outcomes ?? [])],
      requests: [...(b.requests ?? [])],
    };
  }

  getBreakpoints(): Breakpoints {
    return structuredClone(this.breakpoints);
  }

  /** Whether anything could make gate() hold; lets the hot path skip it. */
  get active(): boolean {
    return (
      this.mode !== 'running' ||
      !!this.breakpoints.phases?.length ||
      !!this.breakpoints.outcomes?.length ||
      this.current !== undefined
    );
  }

  held(): HeldState | undefined {
    return this.current?.state;
  }

  /**
   * Wall-clock ms spent holding so far, the current hold included. While one reconcile is held
   * every other waits at its next boundary, so this is time no reconcile could run: the hang
   * watchdog leaves it out (a reconcile held for an hour at a breakpoint has not hung).
   */
  heldMs(): number {
    return this.heldBefore + (this.current ? performance.now() - this.heldSince : 0);
  }

  getMode(): StepMode {
    return this.mode;
  }

  /** Hold at the next phase boundary of any reconcile. */
  pause(): void {
    this.mode = 'paused';
  }

  /** Release the held reconcile and hold again at the very next boundary. */
  step(): void {
    this.mode = 'stepping';
    this.release();
  }

  /** Release and run until the next breakpoint. */
  continue(): void {
    this.mode = 'running';
    this.release();
  }

  private release(): void {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    this.heldBefore += performance.now() - this.heldSince;
    c.thaw?.();
    c.resume();
    this.emit('resumed', { mode: this.mode });
    // Let waiting gates re-evaluate one by one, in order.
    const w = this.waiting.shift();
    w?.();
  }

  /** Called by the runtime at each phase boundary; resolves when the reconcile may go on. */
  async gate(trace: ReconcileTrace, phase: PhaseRecord, when: 'enter' | 'exit'): Promise<void> {
    while (this.current) await new Promise<void>((r) => this.waiting.push(r));
    const reason = this.shouldHold(trace, phase, when);
    if (!reason) {
      const w = this.waiting.shift();
      w?.();
      return;
    }
    if (this.mode === 'stepping' || this.mode === 'paused') this.mode = 'paused';
    const state: HeldState = {
      reason,
      when,
      phase: structuredClone(phase),
      trace: structuredClone(trace),
      at: this.clock?.now() ?? Date.now(),
    };
    await new Promise<void>((resume) => {
      this.current = { state, resume, thaw: this.clock?.freeze?.() };
      this.heldSince = performance.now();
      this.emit('held', state);
    });
  }

  private shouldHold(
    trace: ReconcileTrace,
    phase: PhaseRecord,
    when: 'enter' | 'exit',
  ): HoldReason | undefined {
    if (when === 'enter' && (this.mode === 'stepping' || this.mode === 'paused')) {
      return this.mode === 'stepping' ? 'step' : 'pause';
    }
    const b = this.breakpoints;
    if (b.requests?.length && !b.requests.includes(trace.key)) return undefined;
    if (when === 'enter' && b.phases?.includes(phase.phase)) return 'breakpoint';
    if (when === 'exit' && b.outcomes?.length && matchesOutcome(b.outcomes, trace, phase)) {
      return 'breakpoint';
    }
    return undefined;
  }
}

function matchesOutcome(outs: OutcomeBreak[], trace: ReconcileTrace, phase: PhaseRecord): boolean {
  const reason = phase.call?.reason;
  if (reason && outs.includes(reason as OutcomeBreak)) return true;
  if (phase.phase === 'result') {
    if (outs.includes('error') && trace.error) return true;
    if (outs.includes('requeue') && (trace.result?.requeue || trace.result?.requeueAfter))
      return true;
  }
  return false;
}
