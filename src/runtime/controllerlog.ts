/**
 * A controller's log, as the logr.Logger controller-runtime puts in each reconcile's context: info
 * and error records stamped with the controller and the reconcileID, kept (the newest 10,000) for
 * the views and handed to a listener as they are written.
 */
import type { Logger } from './api';

export interface LogRecord {
  at: number;
  level: 'info' | 'error';
  controller: string;
  reconcileID?: string;
  msg: string;
  values?: Record<string, unknown>;
  error?: string;
}

/** Records kept per controller; the oldest go first. */
export const MAX_LOG_RECORDS = 10_000;

export class ControllerLog {
  readonly records: LogRecord[] = [];

  constructor(
    private readonly controller: string,
    private readonly now: () => number,
    private readonly onRecord: (rec: LogRecord) => void,
  ) {}

  /** The logger of one reconcile (or of the controller itself, without a reconcileID). */
  logger(reconcileID?: string): Logger {
    return new ReconcileLogger(this, reconcileID);
  }

  /** Stamps and keeps one record. */
  write(reconcileID: string | undefined, r: Omit<LogRecord, 'at' | 'controller' | 'reconcileID'>) {
    const rec: LogRecord = {
      at: this.now(),
      controller: this.controller,
      ...(reconcileID ? { reconcileID } : {}),
      ...r,
    };
    this.records.push(rec);
    if (this.records.length > MAX_LOG_RECORDS) this.records.shift();
    this.onRecord(rec);
  }
}

/**
 * One object per reconcile with its methods on the prototype: every reconcile gets a logger and
 * most never log, so closures made for each would be made for nothing.
 */
class ReconcileLogger implements Logger {
  constructor(
    private readonly log: ControllerLog,
    private readonly reconcileID: string | undefined,
  ) {}

  info(msg: string, values?: Record<string, unknown>): void {
    this.log.write(this.reconcileID, { level: 'info', msg, ...(values ? { values } : {}) });
  }

  error(err: unknown, msg: string, values?: Record<string, unknown>): void {
    this.log.write(this.reconcileID, {
      level: 'error',
      msg,
      error:
        err instanceof Error ? err.message : String((err as { message?: unknown })?.message ?? err),
      ...(values ? { values } : {}),
    });
  }
}
