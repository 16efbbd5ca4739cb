/** Reads a child process's output line by line: the benches' children answer one JSON line per question. */
import type { Readable } from 'node:stream';

export function lineReader(stream: Readable): () => Promise<string> {
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  stream.on('data', (d: Buffer) => {
    buf += d.toString();
    let k;
    while ((k = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, k));
      buf = buf.slice(k + 1);
      waiters.shift()?.();
    }
  });
  return async () => {
    while (!lines.length) await new Promise<void>((r) => waiters.push(r));
    return lines.shift()!;
  };
}
