/**
 * The chaos report's fault classes in words, for its rows and its progress messages. A file of its
 * own: the command shows them without loading the runtime.
 */

/** The fault classes of runtime/chaos.ts in words; a class not listed is shown by its id. */
export const FAULT_TITLES: Record<string, string> = {
  'write-conflict': 'Conflict on write (409)',
  throttling: 'Throttling (429 with Retry-After)',
  'write-500': '5xx on write (500)',
  'status-500': '5xx on status (500)',
  'read-timeout': 'Time-out on read (504)',
  'watch-closed': 'Dropped watch',
  'watch-410': 'Relist after 410 Expired',
  'stale-cache': 'Stale cache (watch events 2 s late)',
  'quota-exhausted': 'Quota exhausted (403 exceeded quota)',
};
