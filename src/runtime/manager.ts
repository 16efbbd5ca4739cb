/**
 * controller-runtime's Manager: owns the shared cache, the metrics registry and the controllers,
 * starts and stops them together. This is the object the VS Code layer and the CLI drive: it
 * forwards every controller's events (trace phases, queue changes, hot loops), exposes queue
 * snapshots, traces, metrics as Prometheus text, and the stepper.
 */
import type { KubeObject, TypeRef } from '../cluster/apimachinery/types';
import { splitApiVersion } from '../cluster/apimachinery/types';
import type { Clock } from '../util/clock';
import type { ObjectLike, Reconciler } from './api';
import type { ApiServer } from './apiserver';
import { newControllerManagedBy } from './builder';
import { Cache } from './cache';
import {
  Controller,
  type ControllerEvents,
  type ControllerOptions,
  type HotLoopOptions,
  type QueueSnapshot,
  type ReconcileFunc,
} from './controller';
import { Emitter } from './events';
import { Registry } from './metrics';
import { Stepper, type HeldState } from './stepper';
import type { ReconcileTrace } from './trace';

export interface ManagerOptions {
  api: ApiServer;
  /** Defaults to the API server's clock (the fake cluster's), so both share virtual time. */
  clock?: Clock;
  /** Delay of watch events reaching the cache, to reproduce stale reads (clock ms). */
  propagationDelayMs?: number;
  /** Create a stepper (default true). */
  stepper?: boolean;
  hotLoop?: HotLoopOptions;
  /** Wall-clock ms before an in-process reconcile is abandoned as hung (0 = never). */
  hangTimeoutMs?: number;
  maxTraces?: number;
  /** Keep before/after copies of written objects in traces (default true). */
  recordObjects?: boolean;
}

export interface ManagerEvents extends ControllerEvents {
  held: HeldState;
  resumed: { mode: string };
}

const FORWARDED = [
  'enqueue',
  'queueChange',
  'reconcileStart',
  'phase',
  'reconcileEnd',
  'log',
  'hotLoop',
] as const;
type Forwarded = (typeof FORWARDED)[number];

function isForwarded(ev: keyof ManagerEvents): ev is Forwarded {
  return (FORWARDED as readonly string[]).includes(ev);
}

export class Manager extends Emitter<ManagerEvents> {
  readonly api: ApiServer;
  readonly clock: Clock;
  readonly cache: Cache;
  readonly registry = new Registry();
  readonly stepper: Stepper | undefined;
  readonly controllers: Controller[] = [];
  private started = false;

  constructor(private readonly opts: ManagerOptions) {
    super();
    this.api = opts.api;
    const clock = opts.clock ?? opts.api.clock;
    if (!clock) throw new Error('Manager needs a clock (none given and the API server has none)');
    this.clock = clock;
    this.cache = new Cache({ api: opts.api, clock, propagationDelayMs: opts.propagationDelayMs });
    if (opts.stepper !== false) {
      this.stepper = new Stepper(clock as Clock & { freeze?: () => () => void });
      this.stepper.on('held', (h) => this.emit('held', h));
      this.stepper.on('resumed', (r) => this.emit('resumed', r));
    }
  }

  /** A controller wired to this manager's cache, registry and stepper (used by the builder). */
  newController(
    o: Pick<ControllerOptions, 'name' | 'reconcile'> & Partial<ControllerOptions>,
  ): Controller {
    if (this.controllers.some((c) => c.name === o.name)) {
      throw new Error(`controller with name ${o.name} already exists`);
    }
    const api = this.api;
    const ctrl = new Controller({
      api: this.api,
      cache: this.cache,
      clock: this.clock,
      registry: this.registry,
      stepper: this.stepper,
      hotLoop: this.opts.hotLoop,
      hangTimeoutMs: this.opts.hangTimeoutMs,
      maxTraces: this.opts.maxTraces,
      recordObjects: this.opts.recordObjects,
      recordEvent: api.recordEvent
        ? (obj: ObjectLike, type, reason, message) =>
            api.recordEvent!(
              obj as KubeObject,
              type === 'Warning' ? 'Warning' : 'Normal',
              reason,
              message,
              o.name,
            )
        : undefined,
      ...o,
    });
    for (const ev of FORWARDED) if (this.has(ev)) this.forward(ctrl, ev);
    this.controllers.push(ctrl);
    if (this.started) ctrl.start();
    return ctrl;
  }

  /**
   * Relays a controller's event while the manager has a listener for it: a controller builds an
   * event's value only when someone listens (`has`), and a bulk run would otherwise build one per
   * phase for a relay that drops it.
   */
  private forward<K extends Forwarded>(ctrl: Controller, ev: K): void {
    const off = ctrl.on(ev, (v) => this.emit(ev, v as ManagerEvents[K]));
    let offs = this.relays.get(ev);
    if (!offs) this.relays.set(ev, (offs = []));
    offs.push(off);
  }

  private readonly relays = new Map<Forwarded, Array<() => void>>();

  protected override listening(ev: keyof ManagerEvents, on: boolean): void {
    if (!isForwarded(ev)) return;
    if (on) for (const c of this.controllers) this.forward(c, ev);
    else {
      for (const off of this.relays.get(ev) ?? []) off();
      this.relays.delete(ev);
    }
  }

  /** Wires a reconciler module's definition (for/owns/maxConcurrentReconciles) with the builder. */
  addReconciler(
    def: Pick<Reconciler, 'for' | 'owns' | 'maxConcurrentReconciles' | 'name'>,
    reconcile: ReconcileFunc,
  ): Controller {
    const b = newControllerManagedBy(this).for(def.for);
    for (const o of def.owns ?? []) b.owns(o);
    if (def.name) b.named(def.name);
    if (def.maxConcurrentReconciles)
      b.withOptions({ maxConcurrentReconciles: def.maxConcurrentReconciles });
    return b.complete(reconcile);
  }

  /** Whether a type is namespaced, from discovery (assumed namespaced when unknown). */
  isNamespaced(type: TypeRef): boolean {
    const group = splitApiVersion(type.apiVersion).group;
    try {
      const r = this.api.resources?.().find((x) => x.kind === type.kind && x.group === group);
      if (r) return r.namespaced;
    } catch {
      // discovery is best effort
    }
    return true;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const c of this.controllers) c.start();
  }

  async stop(): Promise<void> {
    this.stepper?.continue();
    await Promise.all(this.controllers.map((c) => c.stop()));
    this.cache.stop();
  }

  /** Every controller idle (nothing queued or reconciling; waiting items may remain). */
  idle(): boolean {
    return this.controllers.every((c) => c.idle());
  }

  traces(): ReconcileTrace[] {
    const all = this.controllers.flatMap((c) => c.traces);
    return all.sort((a, b) => a.start - b.start || a.id - b.id);
  }

  queueSnapshots(): QueueSnapshot[] {
    return this.controllers.map((c) => c.snapshot());
  }

  metricsText(): string {
    for (const c of this.controllers) c.queue.updateUnfinishedWork();
    return this.registry.toPrometheusText();
  }
}
