/**
 * A tiny Prometheus-style registry: counters, gauges and histograms with labels, exported as the
 * text exposition format. Names and buckets follow controller-runtime's pkg/metrics and
 * pkg/internal/controller/metrics so dashboards written for a real operator read the same here.
 * Durations are observed in seconds, as Prometheus expects, though the runtime thinks in ms.
 */
export type Labels = Record<string, string>;

// Callers on hot paths (the queue, the controller) pass the same labels object every time, so the
// key is computed once per object.
const keyCache = new WeakMap<Labels, string>();

function labelKey(labels: Labels): string {
  let k = keyCache.get(labels);
  if (k === undefined) {
    const keys = Object.keys(labels).sort();
    k = keys.map((key) => `${key}=${labels[key]}`).join(',');
    keyCache.set(labels, k);
  }
  return k;
}

function renderLabels(labels: Labels, extra?: [string, string]): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k])}"`);
  if (extra) parts.push(`${extra[0]}="${extra[1]}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  render(): string[];
}

/**
 * One metric's series, by label set. The labels object last asked for is remembered with its
 * series: a worker sets the same gauge with the same labels for every item, and even the key
 * cache's WeakMap lookup shows when a bulk run does it tens of thousands of times.
 */
class Series<S extends { labels: Labels }> {
  private readonly byKey = new Map<string, S>();
  private lastLabels: Labels | undefined;
  private last: S | undefined;

  constructor(private readonly make: (labels: Labels) => S) {}

  /** The series of `labels`, made if it is new. */
  of(labels: Labels): S {
    if (labels === this.lastLabels) return this.last!;
    const k = labelKey(labels);
    let v = this.byKey.get(k);
    if (!v) this.byKey.set(k, (v = this.make(labels)));
    this.lastLabels = labels;
    this.last = v;
    return v;
  }

  /** The series of `labels`, if it has been made. */
  find(labels: Labels): S | undefined {
    return labels === this.lastLabels ? this.last : this.byKey.get(labelKey(labels));
  }

  all(): IterableIterator<S> {
    return this.byKey.values();
  }
}

interface Value {
  labels: Labels;
  value: number;
}

export class Counter implements Metric {
  readonly type = 'counter';
  private readonly values = new Series<Value>((labels) => ({ labels, value: 0 }));

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, by = 1): void {
    this.values.of(labels).value += by;
  }

  get(labels: Labels = {}): number {
    return this.values.find(labels)?.value ?? 0;
  }

  /** Sum over every label set. */
  total(): number {
    let s = 0;
    for (const v of this.values.all()) s += v.value;
    return s;
  }

  render(): string[] {
    return [...this.values.all()].map((v) => `${this.name}${renderLabels(v.labels)} ${v.value}`);
  }
}

export class Gauge implements Metric {
  readonly type = 'gauge';
  private readonly values = new Series<Value>((labels) => ({ labels, value: 0 }));

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(labels: Labels, value: number): void {
    this.values.of(labels).value = value;
  }

  add(labels: Labels, by: number): void {
    this.values.of(labels).value += by;
  }

  get(labels: Labels = {}): number {
    return this.values.find(labels)?.value ?? 0;
  }

  render(): string[] {
    return [...this.values.all()].map((v) => `${this.name}${renderLabels(v.labels)} ${v.value}`);
  }
}

interface HistogramSeries {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
  samples: number[];
}

export class Histogram implements Metric {
  readonly type = 'histogram';
  private readonly series: Series<HistogramSeries>;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[],
    /** Keep raw samples (bounded) so percentiles can be reported exactly for small runs. */
    private readonly keepSamples = 10_000,
  ) {
    this.series = new Series((labels) => ({
      labels,
      counts: buckets.map(() => 0),
      sum: 0,
      count: 0,
      samples: [],
    }));
  }

  observe(labels: Labels, value: number): void {
    const s = this.series.of(labels);
    // Count in the first bucket that holds the value; render() makes the counts cumulative.
    let lo = 0;
    let hi = this.buckets.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.buckets[mid] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo < s.counts.length) s.counts[lo]++;
    s.sum += value;
    s.count++;
    if (s.samples.length < this.keepSamples) s.samples.push(value);
  }

  count(labels: Labels = {}): number {
    return this.series.find(labels)?.count ?? 0;
  }

  sum(labels: Labels = {}): number {
    return this.series.find(labels)?.sum ?? 0;
  }

  /** Percentile (0..1) over the kept samples of one series; undefined when there are none. */
  percentile(labels: Labels, p: number): number | undefined {
    const s = this.series.find(labels);
    if (!s || s.samples.length === 0) return undefined;
    const sorted = [...s.samples].sort((a, b) => a - b);
    const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
    return sorted[idx];
  }

  render(): string[] {
    const out: string[] = [];
    for (const s of this.series.all()) {
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.counts[i];
        out.push(`${this.name}_bucket${renderLabels(s.labels, ['le', String(b)])} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${renderLabels(s.labels, ['le', '+Inf'])} ${s.count}`);
      out.push(`${this.name}_sum${renderLabels(s.labels)} ${s.sum}`);
      out.push(`${this.name}_count${renderLabels(s.labels)} ${s.count}`);
    }
    return out;
  }
}

export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  for (let i = 0, v = start; i < count; i++, v *= factor) out.push(v);
  return out;
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();

  counter(name: string, help: string): Counter {
    return this.register(name, () => new Counter(name, help)) as Counter;
  }

  gauge(name: string, help: string): Gauge {
    return this.register(name, () => new Gauge(name, help)) as Gauge;
  }

  histogram(name: string, help: string, buckets: number[]): Histogram {
    return this.register(name, () => new Histogram(name, help, buckets)) as Histogram;
  }

  private register(name: string, make: () => Metric): Metric {
    let m = this.metrics.get(name);
    if (!m) {
      m = make();
      this.metrics.set(name, m);
    }
    return m;
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  toPrometheusText(): string {
    const lines: string[] = [];
    for (const m of this.metrics.values()) {
      lines.push(`# HELP ${m.name} ${m.help}`);
      lines.push(`# TYPE ${m.name} ${m.type}`);
      lines.push(...m.render());
    }
    return lines.join('\n') + '\n';
  }
}

/** The workqueue metrics client-go registers (k8s.io/client-go/util/workqueue/metrics.go). */
export class WorkqueueMetrics {
  readonly depth: Gauge;
  readonly adds: Counter;
  readonly latency: Histogram;
  readonly workDuration: Histogram;
  readonly retries: Counter;
  readonly unfinishedWork: Gauge;
  readonly longestRunning: Gauge;

  constructor(registry: Registry) {
    const buckets = exponentialBuckets(10e-9, 10, 12);
    this.depth = registry.gauge('workqueue_depth', 'Current depth of workqueue');
    this.adds = registry.counter(
      'workqueue_adds_total',
      'Total number of adds handled by workqueue',
    );
    this.latency = registry.histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      buckets,
    );
    this.workDuration = registry.histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes',
      buckets,
    );
    this.retries = registry.counter(
      'workqueue_retries_total',
      'Total number of retries handled by workqueue',
    );
    this.unfinishedWork = registry.gauge(
      'workqueue_unfinished_work_seconds',
      'How many seconds of work has been done that is in progress and has not been observed by work_duration',
    );
    this.longestRunning = registry.gauge(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running',
    );
  }
}

/** The controller metrics controller-runtime registers (pkg/internal/controller/metrics). */
export class ControllerMetrics {
  readonly reconcileTotal: Counter;
  readonly reconcileErrors: Counter;
  readonly terminalErrors: Counter;
  readonly reconcilePanics: Counter;
  readonly reconcileTime: Histogram;
  readonly workerCount: Gauge;
  readonly activeWorkers: Gauge;

  constructor(registry: Registry) {
    this.reconcileTotal = registry.counter(
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
    );
    this.reconcileErrors = registry.counter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
    );
    this.terminalErrors = registry.counter(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
    );
    this.reconcilePanics = registry.counter(
      'controller_runtime_reconcile_panics_total',
      'Total number of reconciliation panics per controller',
    );
    this.reconcileTime = registry.histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      [
        0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8,
        0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30,
        40, 50, 60,
      ],
    );
    this.workerCount = registry.gauge(
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
    );
    this.activeWorkers = registry.gauge(
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
    );
  }
}
