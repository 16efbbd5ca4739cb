/**
 * Replacing a file whole, so a crash leaves either the old content or the new, never half of
 * either: write a temp file next to it, fsync it, rename it over the target, fsync the folder
 * (the rename itself is only durable once the directory entry is). Files holding credentials or
 * Secrets are written 0600; a target that is already stricter keeps its mode.
 */
import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The mode of files that hold tokens or Secrets. */
export const PRIVATE_MODE = 0o600;

/** The temp file a write of `file` uses; `cleanTempFiles` recognizes it. */
function tempOf(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
}

/** 0600, or the existing file's mode when that grants less (0400 stays 0400). */
function modeFor(file: string): number {
  try {
    return statSync(file).mode & PRIVATE_MODE & 0o777;
  } catch {
    return PRIVATE_MODE;
  }
}

/** Makes a folder's entries (a created or renamed file) durable. */
export function fsyncDir(dir: string): void {
  // Opening a directory read-only and fsyncing it works on Linux and macOS; Windows has no
  // directory fsync (EPERM/EISDIR), and there the rename is as durable as it gets.
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // see above
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Replaces `file` with `data` atomically and durably, mode 0600 (or stricter if it was). */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = tempOf(file);
  const mode = modeFor(file);
  const fd = openSync(tmp, 'w', mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  fsyncDir(dirname(file));
}

/** writeFileAtomic without blocking the event loop during the write and fsync. */
export async function writeFileAtomicAsync(file: string, data: string): Promise<void> {
  const tmp = tempOf(file);
  const fh = await open(tmp, 'w', modeFor(file));
  try {
    await fh.writeFile(data);
    await fh.sync();
  } catch (err) {
    await fh.close();
    rmSync(tmp, { force: true });
    throw err;
  }
  await fh.close();
  renameSync(tmp, file);
  fsyncDir(dirname(file));
}

/**
 * Removes the temp files earlier writes of `file` left behind (a process killed between write and
 * rename), whichever process wrote them. Returns the names removed.
 */
export function cleanTempFiles(file: string): string[] {
  const dir = dirname(file);
  const prefix = `.${basename(file)}.`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const n of names) {
    if (n.startsWith(prefix) && /^\d+\.tmp$/.test(n.slice(prefix.length))) {
      rmSync(join(dir, n), { force: true });
      removed.push(n);
    }
  }
  return removed;
}
