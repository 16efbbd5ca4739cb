/** Names of phases and outcomes as the panel shows them. */
import type { Outcome, Phase } from '../../src/protocol';

export const PHASE_LABELS: Record<Phase, string> = {
  enqueue: 'Enqueue',
  dequeue: 'Dequeue',
  reconcile: 'Reconcile',
  read: 'Read',
  diff: 'Diff',
  write: 'Write',
  status: 'Status',
  result: 'Result',
};
export const OUTCOME_LABELS: Record<Outcome, string> = {
  conflict: 'Conflict',
  forbidden: 'Forbidden',
  notFound: 'NotFound',
  error: 'Error',
  requeue: 'Requeue',
};
