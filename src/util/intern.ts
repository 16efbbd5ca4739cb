/**
 * One shared copy of strings that recur in what a run keeps: a trace's diff paths are the same few
 * (".status.phase") in every reconcile of a kind, and a path built per reconcile is a string per
 * trace that the young generation copies for as long as the trace lives. Bounded: past
 * MAX_INTERNED distinct strings, new ones are only flattened (flatstring.ts), so paths that never
 * repeat (list indices, map keys) cannot grow the table without limit.
 */
import { flattened } from './flatstring';

const MAX_INTERNED = 4096;
const table = new Map<string, string>();

/** The shared copy of `s` (equal text, the same string object each time). */
export function interned(s: string): string {
  // Flattened before the lookup: a concatenation is hashed and compared piece by piece, slower
  // than making it flat first.
  const flat = flattened(s);
  const shared = table.get(flat);
  if (shared !== undefined) return shared;
  if (table.size < MAX_INTERNED) table.set(flat, flat);
  return flat;
}
