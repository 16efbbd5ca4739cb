/**
 * "Fail the next call with…" and "Delay it" for a Go manager under Delve. The debugger holds a
 * write, a status write or a read the server answers once the cluster has answered it (the
 * reader steps out of the call to read the audit record), so the one-shot rule is for the
 * manager's next identical call: same verb, resource, subresource, namespace and name, from the
 * same user agent — the retry or the next pass. It goes into the served cluster's FaultInjector,
 * the one the workspace's faults file feeds; the audit record names it when it hits, and the API
 * calls pane and the timeline mark it. No vscode import: tested in plain Node.
 */
import type { FaultRule } from '../../cluster/faults';
import type { DebuggerFault } from '../../protocol';
import {
  DEBUGGER_FAULT_LABELS,
  describeCall,
  faultRuleFor,
  type FaultTarget,
} from './debuggerfaults';
import type { GoStop } from './godebugview';

/**
 * The call a fault can be made for while held at `stops`' last: a write, a status write or a
 * read the server answered (a cache read never reaches it), found in the audit record.
 */
export function goFaultTarget(stops: GoStop[], held: boolean): FaultTarget | undefined {
  const p = stops[stops.length - 1]?.phase;
  const c = p?.call;
  if (!held || !c || c.source !== 'server') return undefined;
  if (p.phase !== 'write' && p.phase !== 'status' && p.phase !== 'read') return undefined;
  // Not in the audit record (the answer was not found): nothing to match the next call on.
  if (c.resource === undefined) return undefined;
  // After a create that succeeded the object exists: its next identical call would never come,
  // and a rule without the name (a create's request has none) would fail another object's.
  if (c.verb === 'create' && c.code !== undefined && c.code < 300) return undefined;
  return {
    // Server-side apply is a PATCH to the apiserver.
    verb: c.verb === 'apply' ? 'patch' : c.verb,
    resource: c.resource,
    subresource: c.subresource,
    namespace: c.namespace,
    name: c.name,
    ...(c.userAgent ? { userAgent: c.userAgent } : {}),
  };
}

export class GoDebugFaults {
  private injected = 0;
  /** The hold a fault was made at: one per held call, as for a TypeScript reconciler. */
  private faultedAt: GoStop | undefined;

  /** @param injector the served cluster's; undefined when there is none to inject into. */
  constructor(private readonly injector: () => { inject(rule: FaultRule): void } | undefined) {}

  /** What the panel offers the controls for now ("update deployments default/blog"). */
  target(stops: GoStop[], held: boolean): FaultTarget | undefined {
    if (!this.injector() || stops[stops.length - 1] === this.faultedAt) return undefined;
    return goFaultTarget(stops, held);
  }

  /** Adds the one-shot rule; returns the panel's message. */
  inject(stops: GoStop[], held: boolean, fault: DebuggerFault): string {
    const target = this.target(stops, held);
    const injector = this.injector();
    if (!target || !injector)
      throw new Error(
        'A fault can be made only while the Go operator is held at a write, a status write or a read the API server answered, on the embedded cluster.',
      );
    injector.inject(faultRuleFor(target, fault, ++this.injected));
    this.faultedAt = stops[stops.length - 1];
    const what =
      fault === 'delay' ? 'be answered late' : `fail with ${DEBUGGER_FAULT_LABELS[fault]}`;
    return `The manager's next ${describeCall(target)} will ${what} (this one was answered before the hold): Step or Continue to see what it does`;
  }
}
