/**
 * What `lint` reads, and what it refuses to: a path named `.go` or `.ts` is not necessarily source
 * code. FIFOs and devices are skipped on their stat alone (opening a FIFO blocks until a writer
 * comes), files over a size bound are skipped before they are read (parsing costs memory in
 * proportion to the text), and binary files are skipped as git skips them in diffs — a NUL byte —
 * or because the bytes are not UTF-8, which the Go spec requires of source text. Each skip, and
 * each file an analyzer fails on, becomes a notification the output reports instead of a run that
 * aborts or hangs.
 */
import { readFileSync, statSync, type Stats } from 'node:fs';

/** Well past any hand-written Go or TypeScript file (the largest in Kubernetes are under 1 MiB). */
export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

export interface LintNotification {
  file: string;
  /** `note`: the file was skipped on purpose; `error`: analyzing it failed (an internal error). */
  level: 'note' | 'error';
  message: string;
  /** The error an analyzer threw, for `error` notifications. */
  exception?: { kind: string; message: string };
}

export type SourceRead = { text: string } | { skipped: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The file's text, or why it is not analyzed. Never opens anything but a regular file. */
export function readSource(path: string, maxBytes: number): SourceRead {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    return { skipped: `cannot stat: ${(err as Error).message}` };
  }
  if (!st.isFile()) return { skipped: `not a regular file (${fileKind(st)})` };
  if (st.size > maxBytes) return { skipped: tooLarge(st.size, maxBytes) };
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (err) {
    return { skipped: `cannot read: ${(err as Error).message}` };
  }
  // The file may have grown between stat and read.
  if (buf.length > maxBytes) return { skipped: tooLarge(buf.length, maxBytes) };
  if (buf.includes(0)) return { skipped: 'binary file (contains NUL bytes)' };
  try {
    return { text: utf8.decode(buf) };
  } catch {
    return { skipped: 'binary file (not valid UTF-8)' };
  }
}

/** `--max-file-size`: bytes, or a number with a KiB/MiB suffix (K/M and KB/MB read the same). */
export function parseSize(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(k|kb|kib|m|mb|mib)?$/i.exec(s.trim());
  if (!m) return undefined;
  const unit = m[2]?.toLowerCase() ?? '';
  const scale = unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1;
  const n = Math.floor(Number(m[1]) * scale);
  return n > 0 ? n : undefined;
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

function tooLarge(size: number, max: number): string {
  return `${formatSize(size)} is over the ${formatSize(max)} limit (--max-file-size)`;
}

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file';
}
