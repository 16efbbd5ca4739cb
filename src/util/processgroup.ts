/**
 * Whether a process group still has a live member. A killed process whose parent is gone is
 * reparented to PID 1 and stays a zombie until PID 1 reaps it, which some container inits do
 * late or never: a zombie has ended (it holds no port, file or CPU), so it does not count.
 * Read from /proc where there is one; elsewhere any member, zombie or not, counts.
 */
import { readdirSync, readFileSync } from 'node:fs';

export function groupAlive(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return signalable(pgid);
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      // Fields after the command name (which may hold spaces): state, ppid, pgrp, …
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    } catch {
      // Exited while we looked.
    }
  }
  return false;
}

function signalable(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
