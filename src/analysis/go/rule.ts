/**
 * What a Go rule receives and how it reports. Rules are plain objects with a `check` over the
 * package's reconcilers, one file each under go/rules/.
 */
import type { Fix } from '../diagnostics';
import type { GoFile, GoPackage } from './package';
import type { Reconciler } from './reconcilers';
import type { Summaries } from './summary';
import type { Node } from './syntax';

export interface GoReport {
  file: GoFile;
  node: Node;
  message: string;
  /**
   * Quick fixes, built when the finding is published: a cached report is published again after
   * edits elsewhere in the file, so edits must be computed from the file as it is then.
   */
  fixes?: () => Fix[];
  /** report a narrower span than the node, as offsets into the file */
  span?: [number, number];
}

export interface GoRuleContext {
  pkg: GoPackage;
  reconcilers: Reconciler[];
  /** what calls into the package and the rest of the module do (summary.ts) */
  summaries: Summaries;
  report(r: GoReport): void;
}

export interface GoRule {
  id: string;
  check(ctx: GoRuleContext): void;
}
