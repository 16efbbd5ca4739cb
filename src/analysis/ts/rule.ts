/** What a TypeScript rule receives and how it reports. */
import type * as ts from 'typescript';
import type { TsReconciler } from './reconcilers';

export interface TsRuleContext {
  sf: ts.SourceFile;
  reconcilers: TsReconciler[];
  /** `fixes` are text edits as offsets into the file; analyze.ts turns them into ranges. */
  report(node: ts.Node, message: string, fixes?: TsFix[]): void;
}

export interface TsFix {
  title: string;
  edits: { start: number; end: number; newText: string }[];
}

export interface TsRule {
  id: string;
  check(ctx: TsRuleContext): void;
}
