/** What a TypeScript rule receives and how it reports. */
import type * as ts from 'typescript';
import type { TsReconciler } from './reconcilers';

export interface TsRuleContext {
  sf: ts.SourceFile;
  reconcilers: TsReconciler[];
  report(node: ts.Node, message: string): void;
}

export interface TsRule {
  id: string;
  check(ctx: TsRuleContext): void;
}
