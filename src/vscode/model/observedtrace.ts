/**
 * An observed reconcile (a Go manager's, from the cluster's audit record and its logs:
 * runtime/observedcontroller.ts) as the Reconcile Debugger shows a recorded one: its calls become
 * read, write and status phases, in the order the cluster saw them, between the reconcile's start
 * and its result. The debugger's API calls pane and timeline read phases; an observed trace has
 * its calls alone. No vscode import: tested in plain Node.
 */
import type { ApiCall, Phase, PhaseRecord, ReconcileTrace } from '../../runtime/trace';
import { describeCall } from './debuggerfaults';

/** `t` with a phase per call; a trace whose phases hold its calls (a TypeScript one) as it is. */
export function withCallPhases(t: ReconcileTrace): ReconcileTrace {
  if (!t.calls.length || t.phases.some((p) => p.call)) return t;
  const calls = [...t.calls]
    .sort((a, b) => a.at - b.at)
    .map((call): PhaseRecord => ({
      phase: phaseOf(call),
      at: call.at,
      summary: `${describeCall(call)} → ${call.code}`,
      call,
    }));
  const result = t.phases.findIndex((p) => p.phase === 'result');
  const at = result < 0 ? t.phases.length : result;
  return { ...t, phases: [...t.phases.slice(0, at), ...calls, ...t.phases.slice(at)] };
}

/** The phase a call belongs to, as the runtime's client records it (client.ts). */
function phaseOf(call: ApiCall): Phase {
  if (call.verb === 'get' || call.verb === 'list') return 'read';
  return call.subresource === 'status' ? 'status' : 'write';
}
