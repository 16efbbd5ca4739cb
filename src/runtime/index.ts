/**
 * The reconcile runtime's public surface for the VS Code layer and the CLI. Nothing here imports
 * `vscode`; everything runs in plain Node.
 */
export { Manager, type ManagerOptions, type ManagerEvents } from './manager';
export {
  Controller,
  type ControllerOptions,
  type ControllerEvents,
  type QueueSnapshot,
  type LogRecord,
  type HotLoopReport,
  type HotLoopOptions,
  type ReconcileFunc,
} from './controller';
export { Builder, newControllerManagedBy, type BuilderOptions, type WatchOpts } from './builder';
export {
  Stepper,
  type Breakpoints,
  type HeldState,
  type HoldReason,
  type OutcomeBreak,
  type StepMode,
} from './stepper';
export {
  PHASES,
  diffObjects,
  type Phase,
  type PhaseRecord,
  type ReconcileTrace,
  type ApiCall,
  type DiffEntry,
  type Trigger,
  type NextAction,
  type Outcome,
  type TraceError,
} from './trace';
export {
  analyze,
  parseQuotaMessage,
  type Finding,
  type FindingKind,
  type ClusterEvent,
} from './findings';
export {
  loadReconciler,
  bundleReconciler,
  ReconcilerLoadError,
  type LoadedReconciler,
  type LoadOptions,
} from './loader';
export {
  simulate,
  parseDuration,
  type SimulationOptions,
  type SimulationResult,
  type SimulationReport,
} from './simulation';
export { Cache } from './cache';
export { Informer } from './informer';
export { WorkQueue } from './workqueue';
export { DelayingQueue, type WaitReason } from './delayingqueue';
export { RateLimitingQueue } from './ratelimitingqueue';
export * from './ratelimiter';
export * from './predicate';
export * from './handler';
export { Registry } from './metrics';
export {
  TerminalError,
  isTerminalError,
  requestKey,
  parseRequestKey,
  type Request,
  type Result,
} from './reconcile';
export type { ApiServer } from './apiserver';
export type { ReconcileContext, Client, Reconciler } from './api';
