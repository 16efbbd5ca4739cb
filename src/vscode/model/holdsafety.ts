/**
 * What holding a Go manager under Delve puts at risk on a real cluster, whose clock runs on while
 * the whole process is stopped (the embedded cluster's is frozen instead). Read from the
 * manager's own output as it starts:
 *
 * - a leader Lease it acquired (client-go's leaderelection logs "Successfully acquired lease"
 *   with its lock, as zap JSON through controller-runtime's logger or as klog text): held, it
 *   renews nothing, so after the renew deadline (10 s by default in controller-runtime) it gives
 *   the lease up and exits when it runs again, and after the lease duration (15 s) another
 *   replica may take over;
 * - a webhook server it serves (controller-runtime's "Serving webhook server", with its port):
 *   kube-apiserver's calls to it get no answer while it is held, so each waits its
 *   configuration's timeoutSeconds (10 s by default) and then its failurePolicy decides.
 *
 * The durations are controller-runtime's and admissionregistration's defaults: a manager or a
 * webhook configuration may set others, which the output does not say.
 */
import type { HoldView, HoldWarning } from '../../protocol';

/** What the manager's output said it holds or serves. */
export interface ManagerExposure {
  /** The leader election lock it acquired ("namespace/name"). */
  lease?: string;
  /** The port its webhook server listens on, once it serves. */
  webhookPort?: number;
}

const RENEW_DEADLINE_MS = 10_000;
const LEASE_DURATION_MS = 15_000;
const WEBHOOK_TIMEOUT_MS = 10_000;

const ACQUIRED = /Successfully acquired lease/;
const LOCK = /"?lock"?\s*[=:]\s*"([^"]+)"/;
const SERVING = /Serving webhook server/;
const PORT = /"?port"?\s*[=:]\s*"?(\d+)/;

/** Notes what one line of the manager's output says about its lease or webhook server. */
export function noteManagerLine(line: string, exposure: ManagerExposure): void {
  if (ACQUIRED.test(line)) {
    const lock = LOCK.exec(line)?.[1];
    if (lock) exposure.lease = lock;
  } else if (SERVING.test(line)) {
    const port = PORT.exec(line)?.[1];
    exposure.webhookPort = port ? Number(port) : 0;
  }
}

/** The warnings for a hold of a manager so exposed, each with when (after the hold began) it fires. */
export function holdWarnings(exposure: ManagerExposure): HoldWarning[] {
  const out: HoldWarning[] = [];
  if (exposure.lease)
    out.push({
      kind: 'lease',
      firesAfterMs: RENEW_DEADLINE_MS,
      message:
        `The manager holds the leader Lease ${exposure.lease} and cannot renew it while held: ` +
        `past its renew deadline (10 s by default) it gives the lease up and exits when it runs ` +
        `again, and past the lease duration (${LEASE_DURATION_MS / 1000} s) another replica may ` +
        `take over.`,
    });
  if (exposure.webhookPort !== undefined)
    out.push({
      kind: 'webhook',
      firesAfterMs: WEBHOOK_TIMEOUT_MS,
      message:
        `The manager serves admission webhooks${exposure.webhookPort ? ` on port ${exposure.webhookPort}` : ''}: ` +
        `calls that reach this process get no answer while it is held, so kube-apiserver waits ` +
        `each configuration's timeoutSeconds (10 s by default) and then applies its ` +
        `failurePolicy (Fail refuses the write). Webhooks served in the cluster are not affected.`,
    });
  return out;
}

/** What the panel says of a hold at `now`: how long it has lasted, and each warning's state. */
export function holdLines(
  hold: HoldView,
  now: number,
): { held: string; warnings: Array<{ kind: HoldWarning['kind']; text: string; fired: boolean }> } {
  const heldMs = Math.max(0, now - hold.since);
  return {
    held: `Held for ${minutesSeconds(heldMs)} on ${hold.cluster}, whose clock does not stop.`,
    warnings: hold.warnings.map((w) => {
      const fired = heldMs >= w.firesAfterMs;
      const when = fired
        ? `Held past ${w.firesAfterMs / 1000} s: this has happened.`
        : `In ${Math.ceil((w.firesAfterMs - heldMs) / 1000)} s.`;
      return { kind: w.kind, text: `${when} ${w.message}`, fired };
    }),
  };
}

/** 83 s → "1:23". */
function minutesSeconds(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
