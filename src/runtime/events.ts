/** A minimal typed event emitter: the runtime's events reach the VS Code layer and the CLI through it. */
export type Listener<T> = (value: T) => void;

export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();
  /**
   * Listeners of any event: while there are none (a headless run), `has` and `emit` answer without
   * a lookup — the controller asks a dozen times per reconcile.
   */
  private listenerCount = 0;

  on<K extends keyof Events>(event: K, fn: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const first = set.size === 0;
    if (!set.has(fn as Listener<never>)) {
      set.add(fn as Listener<never>);
      this.listenerCount++;
    }
    if (first) this.listening(event, true);
    return () => {
      if (!set!.delete(fn as Listener<never>)) return;
      this.listenerCount--;
      if (set!.size === 0) this.listening(event, false);
    };
  }

  /**
   * An event gained its first listener (`on`) or lost its last: a relay of another emitter's
   * events listens there only meanwhile, so that emitter's `has` stays false while nobody hears.
   */
  protected listening(_event: keyof Events, _on: boolean): void {}

  emit<K extends keyof Events>(event: K, value: Events[K]): void {
    if (this.listenerCount === 0) return;
    const set = this.listeners.get(event);
    if (!set) return;
    for (const fn of set) {
      try {
        (fn as Listener<Events[K]>)(value);
      } catch {
        // a failing listener (a view) must never break the runtime
      }
    }
  }

  has(event: keyof Events): boolean {
    return this.listenerCount > 0 && (this.listeners.get(event)?.size ?? 0) > 0;
  }
}
