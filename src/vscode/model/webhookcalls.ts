/**
 * The webhook calls a write made (the cluster's audit record of them, cluster/admission/webhook/
 * callrecord.ts) as the Reconcile Debugger's API calls pane shows them, under that write: the
 * verdict in words — allowed, patched, denied with its code, or a failed call with what its
 * failurePolicy did to the write — and the latency. No vscode import: tested in plain Node.
 */
import type { WebhookCallRecord } from '../../cluster/admission/webhook/callrecord';
import type { WebhookCallView } from '../../protocol';

export function webhookCallView(r: WebhookCallRecord): WebhookCallView {
  const object = [r.namespace, r.name].filter(Boolean).join('/');
  const asked = [r.operation, r.resource, object].filter(Boolean).join(' ');
  const refused = r.ok ? r.allowed === false : r.failurePolicy !== 'Ignore';
  const message = r.ok ? (r.allowed === false ? r.message : undefined) : r.error;
  return {
    kind: r.kind,
    webhook: r.webhook,
    ...(r.configuration ? { configuration: r.configuration } : {}),
    ...(asked ? { asked } : {}),
    verdict: verdictOf(r),
    refused,
    failed: !r.ok,
    ...(message ? { message } : {}),
    latencyMs: r.ms,
  };
}

function verdictOf(r: WebhookCallRecord): string {
  if (!r.ok) {
    const how = r.timedOut ? 'timed out' : 'call failed';
    // A conversion has no failurePolicy: the request fails with it.
    if (r.failurePolicy === 'Ignore') return `${how} — ignored (failurePolicy Ignore)`;
    return r.failurePolicy ? `${how} — write refused (failurePolicy Fail)` : how;
  }
  if (r.kind === 'conversion') return 'converted';
  if (r.allowed === false) return r.code ? `denied (${r.code})` : 'denied';
  return r.patched ? 'allowed, patched' : 'allowed';
}

/** The views of a call's webhooks, or nothing when it made none. */
export function webhookCallViews(
  records: WebhookCallRecord[] | undefined,
): { webhooks: WebhookCallView[] } | Record<string, never> {
  return records?.length ? { webhooks: records.map(webhookCallView) } : {};
}
