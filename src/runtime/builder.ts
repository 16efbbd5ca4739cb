/**
 * controller-runtime's pkg/builder: the fluent way to wire a controller.
 *   newControllerManagedBy(mgr).for(WebApp).owns(Deployment).withEventFilter(p).complete(reconcile)
 * - for(T): reconcile T itself on its events (EnqueueRequestForObject);
 * - owns(C): reconcile the controlling owner of type T when a C changes
 *   (EnqueueRequestForOwner with OnlyControllerOwner — a non-controller ownerRef does not count);
 * - watches(X, mapFn | handler): reconcile whatever the map function returns;
 * - withEventFilter(p): predicates applied to every watch, before the per-watch ones.
 */
import type { TypeRef } from '../cluster/apimachinery/types';
import { splitApiVersion } from '../cluster/apimachinery/types';
import type { Controller, ControllerOptions, HotLoopOptions, ReconcileFunc } from './controller';
import {
  EnqueueRequestForObject,
  EnqueueRequestForOwner,
  EnqueueRequestsFromMapFunc,
  type EventHandler,
  type MapFunc,
} from './handler';
import type { Predicate } from './predicate';
import type { RateLimiter } from './ratelimiter';

/**
 * What the builder needs of a manager, as controller-runtime's builder takes the manager.Manager
 * interface rather than its implementation (Manager satisfies it; manager.ts uses the builder).
 */
export interface ControllerManager {
  newController(
    o: Pick<ControllerOptions, 'name' | 'reconcile'> & Partial<ControllerOptions>,
  ): Controller;
  /** Whether a type is namespaced, for EnqueueRequestForOwner. */
  isNamespaced(type: TypeRef): boolean;
}

export interface WatchOpts {
  predicates?: Predicate[];
}

export interface BuilderOptions {
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter<string>;
  hangTimeoutMs?: number;
  hotLoop?: HotLoopOptions;
}

export class Builder {
  private forType?: { type: TypeRef; predicates: Predicate[] };
  private readonly ownsTypes: Array<{ type: TypeRef; predicates: Predicate[] }> = [];
  private readonly watchList: Array<{
    type: TypeRef;
    handler: EventHandler;
    predicates: Predicate[];
  }> = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: BuilderOptions = {};
  private controllerName?: string;

  constructor(private readonly mgr: ControllerManager) {}

  for(type: TypeRef, opts: WatchOpts = {}): this {
    if (this.forType) throw new Error('for() may only be called once');
    this.forType = { type, predicates: opts.predicates ?? [] };
    return this;
  }

  owns(type: TypeRef, opts: WatchOpts = {}): this {
    this.ownsTypes.push({ type, predicates: opts.predicates ?? [] });
    return this;
  }

  watches(type: TypeRef, handler: EventHandler | MapFunc, opts: WatchOpts = {}): this {
    const h = typeof handler === 'function' ? new EnqueueRequestsFromMapFunc(handler) : handler;
    this.watchList.push({ type, handler: h, predicates: opts.predicates ?? [] });
    return this;
  }

  withEventFilter(p: Predicate): this {
    this.globalPredicates.push(p);
    return this;
  }

  withOptions(o: BuilderOptions): this {
    this.options = { ...this.options, ...o };
    return this;
  }

  named(name: string): this {
    this.controllerName = name;
    return this;
  }

  complete(reconcile: ReconcileFunc): Controller {
    if (!this.forType && !this.controllerName) {
      throw new Error('one of for() or named() must be called');
    }
    const name = this.controllerName ?? this.forType!.type.kind.toLowerCase();
    const ctrl = this.mgr.newController({
      name,
      reconcile,
      ...this.options,
    });
    const g = this.globalPredicates;
    if (this.forType) {
      ctrl.watch(this.forType.type, new EnqueueRequestForObject(), [
        ...g,
        ...this.forType.predicates,
      ]);
      for (const o of this.ownsTypes) {
        const handler = new EnqueueRequestForOwner(
          this.forType.type,
          true,
          this.mgr.isNamespaced(this.forType.type),
        );
        ctrl.watch(o.type, handler, [...g, ...o.predicates]);
      }
    } else if (this.ownsTypes.length) {
      throw new Error('owns() needs for()');
    }
    for (const w of this.watchList) ctrl.watch(w.type, w.handler, [...g, ...w.predicates]);
    return ctrl;
  }
}

export function newControllerManagedBy(mgr: ControllerManager): Builder {
  return new Builder(mgr);
}

/** `apps` of `apps/v1`, '' for the core group. */
export function groupOf(type: TypeRef): string {
  return splitApiVersion(type.apiVersion).group;
}
