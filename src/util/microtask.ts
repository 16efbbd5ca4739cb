/**
 * `fn` in a microtask, as `queueMicrotask` runs it, for the cluster's per-write scheduling (the
 * store's flush, a watcher's delivery, a controller's queue). Node's queueMicrotask makes an
 * AsyncResource and a bound function per call and runs the callback inside async-hooks scope
 * changes: a bulk run schedules tens of thousands, and a reaction on a settled promise is a
 * microtask of the same queue, in the same order, for less than half the cost. The callbacks
 * given here do not throw (each catches its own failures): one that did would surface as an
 * unhandled rejection rather than an uncaught exception.
 */
const settled = Promise.resolve();

export function microtask(fn: () => void): void {
  void settled.then(fn);
}
