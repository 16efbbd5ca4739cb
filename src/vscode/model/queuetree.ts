/**
 * The Work Queue tree as data: per controller, what is processing (and for how long), queued (in
 * order), and waiting (time left and why: backoff n, requeueAfter, rate limit), with retries.
 */
import type { QueueSnapshot as RuntimeQueueSnapshot } from '../../runtime/controller';
import type { WaitReason } from '../../runtime/delayingqueue';
import { formatDuration } from './timeformat';
import { describeWaitReason } from './waitreason';

export interface WaitingItem {
  key: string;
  readyAt: number;
  reason: WaitReason;
}

export interface QueueSnapshot {
  controller: string;
  /** Clock time the snapshot was taken (virtual or wall ms). */
  now: number;
  processing: Array<{ key: string; since: number }>;
  queued: string[];
  waiting: WaitingItem[];
  /** numRequeues per key, for keys that have failed at least once. */
  retries: Record<string, number>;
  /** Queue depth a controller reports itself (`workqueue_depth`), when its keys are not all known. */
  depth?: number;
  /** What went wrong so far (findings.ts), for controllers the editor only observes. */
  findings?: Array<{ kind: string; key: string; message: string; evidence?: string[] }>;
}

/** A Go operator being built (Run or Debug Go Operator), shown above the controllers. */
export interface BuildRow {
  /** `Building: 57 packages, 0:42 — sigs.k8s.io/controller-runtime/pkg/client`. */
  text: string;
  tooltip: string;
}

export type QueueNode =
  | { type: 'build'; id: 'build'; text: string; tooltip: string }
  | {
      type: 'controller';
      id: string;
      controller: string;
      depth: number;
      busy: number;
      waiting: number;
    }
  | { type: 'section'; id: string; controller: string; section: Section; count: number }
  | {
      type: 'item';
      id: string;
      controller: string;
      section: Section;
      key: string;
      description: string;
      tooltip: string;
      retries: number;
    };

export type Section = 'processing' | 'queued' | 'waiting' | 'findings';
const SECTION_LABELS: Record<Section, string> = {
  processing: 'Processing',
  queued: 'Queued',
  waiting: 'Waiting',
  findings: 'Findings',
};

export function sectionLabel(s: Section): string {
  return SECTION_LABELS[s];
}

/** Time left or spent, never negative (a key due a moment ago is due now). */
function formatDelay(ms: number): string {
  return formatDuration(Math.max(0, ms));
}

export class QueueTreeModel {
  private snapshots = new Map<string, QueueSnapshot>();
  private build: BuildRow | undefined;

  /**
   * The build under way, or none. While a first build takes minutes, the view says so rather
   * than "No reconciler is running".
   */
  setBuild(build: BuildRow | undefined): void {
    this.build = build;
  }

  update(s: QueueSnapshot): void {
    this.snapshots.set(s.controller, s);
  }

  remove(controller: string): void {
    this.snapshots.delete(controller);
  }

  clear(): void {
    this.snapshots.clear();
  }

  get empty(): boolean {
    return this.snapshots.size === 0 && !this.build;
  }

  /** Total queued + processing + waiting over all controllers, for the status bar. */
  depth(): number {
    let n = 0;
    for (const s of this.snapshots.values())
      n += s.queued.length + s.processing.length + s.waiting.length;
    return n;
  }

  children(node?: QueueNode): QueueNode[] {
    if (!node) {
      const build: QueueNode[] = this.build ? [{ type: 'build', id: 'build', ...this.build }] : [];
      return [
        ...build,
        ...[...this.snapshots.values()]
          .sort((a, b) => a.controller.localeCompare(b.controller))
          .map((s): QueueNode => ({
            type: 'controller',
            id: `c:${s.controller}`,
            controller: s.controller,
            depth: Math.max(s.queued.length, s.depth ?? 0),
            busy: s.processing.length,
            waiting: s.waiting.length,
          })),
      ];
    }
    if (node.type === 'build') return [];
    const s = this.snapshots.get(node.controller);
    if (!s) return [];
    if (node.type === 'controller') {
      const sections: Section[] = ['processing', 'queued', 'waiting'];
      if (s.findings?.length) sections.push('findings');
      return sections.map((section) => ({
        type: 'section',
        id: `s:${s.controller}:${section}`,
        controller: s.controller,
        section,
        count:
          section === 'processing'
            ? s.processing.length
            : section === 'queued'
              ? s.queued.length
              : section === 'waiting'
                ? s.waiting.length
                : (s.findings?.length ?? 0),
      }));
    }
    if (node.type !== 'section') return [];
    const retries = (key: string) => s.retries[key] ?? 0;
    const retryText = (key: string) =>
      retries(key) ? ` · ${retries(key)} ${retries(key) === 1 ? 'retry' : 'retries'}` : '';
    const item = (
      section: Section,
      key: string,
      description: string,
      tooltip: string,
    ): QueueNode => ({
      type: 'item',
      id: `i:${s.controller}:${section}:${key}`,
      controller: s.controller,
      section,
      key,
      description: description + retryText(key),
      tooltip,
      retries: retries(key),
    });
    switch (node.section) {
      case 'findings': {
        // A tree id must be unique (VS Code refuses the whole tree otherwise): the same kind of
        // finding can name one key twice.
        const seen = new Map<string, number>();
        return (s.findings ?? []).map((f) => {
          const base = `i:${s.controller}:findings:${f.kind}:${f.key}`;
          const n = seen.get(base) ?? 0;
          seen.set(base, n + 1);
          return {
            type: 'item',
            id: n ? `${base}#${n}` : base,
            controller: s.controller,
            section: 'findings',
            key: `${f.kind} ${f.key}`.trim(),
            description: f.message,
            // The evidence, in words (findingevidence.ts), under the message.
            tooltip: [f.message, ...(f.evidence ?? [])].join('\n'),
            retries: 0,
          };
        });
      }
      case 'processing':
        return s.processing.map((p) =>
          item(
            'processing',
            p.key,
            `for ${formatDelay(s.now - p.since)}`,
            `${p.key} has been reconciling for ${formatDelay(s.now - p.since)}`,
          ),
        );
      case 'queued':
        return s.queued.map((key, i) =>
          item('queued', key, `#${i + 1}`, `${key} is number ${i + 1} in line`),
        );
      case 'waiting':
        return [...s.waiting]
          .sort((a, b) => a.readyAt - b.readyAt)
          .map((w) =>
            item(
              'waiting',
              w.key,
              `in ${formatDelay(w.readyAt - s.now)} · ${describeWaitReason(w.reason)}`,
              `${w.key} becomes ready in ${formatDelay(w.readyAt - s.now)} (${describeWaitReason(w.reason)})`,
            ),
          );
    }
  }
}

/** The runtime's queue snapshot in the Work Queue view's terms. */
export function adaptSnapshot(s: RuntimeQueueSnapshot): QueueSnapshot {
  return {
    controller: s.controller,
    now: s.at,
    processing: s.processing.map((p) => ({ key: p.key, since: p.since ?? s.at })),
    queued: s.queued.map((q) => q.key),
    waiting: s.waiting.map((w) => ({ key: w.key, readyAt: w.readyAt, reason: w.reason })),
    retries: Object.fromEntries(s.retries.map((r) => [r.key, r.count])),
  };
}
