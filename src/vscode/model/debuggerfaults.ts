/**
 * The Reconcile Debugger's "Fail the next call with…" and "Delay it": the held call, about to be
 * made, becomes a one-shot rule of the embedded cluster's FaultInjector (cluster/faults.ts), so it
 * meets the apiserver's own Status for the code exactly as a faults-file rule would make it. No
 * vscode import: tested in plain Node.
 */
import type { AuditVerb } from '../../cluster/endpoints/audit';
import type { FaultRule } from '../../cluster/faults';
import type { DebuggerFault } from '../../protocol';
import { formatDuration } from './timeformat';

/**
 * The call a fault is made for, as the cluster will see it: a TypeScript reconciler's held call
 * (an ApiCall), or a Go manager's as the audit record showed it (with its user agent, so the
 * rule hits that process only).
 */
export interface FaultTarget {
  verb: AuditVerb;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  userAgent?: string;
}

/** How long "Delay it" holds the answer back, on the cluster's (virtual) clock. */
export const DEBUGGER_DELAY_MS = 2000;

export const DEBUGGER_FAULT_LABELS: Record<DebuggerFault, string> = {
  conflict: 'Conflict',
  quota: 'Forbidden by quota',
  throttle: 'Too Many Requests',
  internal: 'Internal Error',
  timeout: 'Timeout',
  delay: `Delay ${formatDuration(DEBUGGER_DELAY_MS)}`,
};

/**
 * The quota "Forbidden by quota" names: cluster/faults.ts's INJECTED_QUOTA, spelled out because
 * the debugger webview bundles this file and cannot load the faults module (it reads files).
 */
const INJECTED_QUOTA = 'injected-quota';

const ERRORS: Record<Exclude<DebuggerFault, 'delay'>, NonNullable<FaultRule['error']>> = {
  conflict: { code: 409 },
  // The quota admission plugin's refusal (`exceeded quota: …`), not the RBAC authorizer's.
  quota: { code: 403, quota: INJECTED_QUOTA },
  throttle: { code: 429 },
  internal: { code: 500 },
  timeout: { code: 504 },
};

/** The one-shot rule that makes the held `call` fail (or answer late) when it is made. */
export function faultRuleFor(call: FaultTarget, fault: DebuggerFault, seq: number): FaultRule {
  return {
    name: `debugger-${seq}: ${DEBUGGER_FAULT_LABELS[fault]}`,
    match: {
      verb: call.verb,
      resource: call.resource,
      subresource: call.subresource,
      namespace: call.namespace,
      // A create's request names no object yet (the name is in its body).
      ...(call.verb === 'create' ? {} : { name: call.name }),
      ...(call.userAgent !== undefined ? { userAgent: call.userAgent } : {}),
    },
    times: 1,
    ...(fault === 'delay' ? { latencyMs: DEBUGGER_DELAY_MS } : { error: ERRORS[fault] }),
    line: 0,
  };
}

/** "update configmaps/status default/cfg": the held call, as the controls name it. */
export function describeCall(call: FaultTarget): string {
  const res = call.subresource ? `${call.resource}/${call.subresource}` : call.resource;
  const key = call.namespace ? `${call.namespace}/${call.name}` : call.name;
  return `${call.verb} ${res} ${key}`;
}
