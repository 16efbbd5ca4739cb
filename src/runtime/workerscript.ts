/**
 * Starting a worker_thread from one of the runtime's scripts: the bundled `dist/<bundle>.js` next
 * to the running bundle (the extension, the CLI), or the TypeScript source through tsx's require
 * hook when running from source (tests, `node --import tsx`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `dir` is the caller's `__dirname`; `source` the script's file name beside it in src/runtime. */
export function newScriptWorker(
  dir: string,
  bundle: string,
  source: string,
  options: WorkerOptions = {},
): Worker {
  const src = join(dir, source);
  if (existsSync(src)) {
    // From source: register tsx's require hook inside the worker, then load the script.
    const boot = `require('tsx/cjs'); require(${JSON.stringify(src)});`;
    return new Worker(boot, { ...options, eval: true });
  }
  const file = [join(dir, `${bundle}.js`), join(dir, '..', '..', 'dist', `${bundle}.js`)].find(
    (c) => existsSync(c),
  );
  if (!file) throw new Error(`${bundle} script not found (build dist/${bundle}.js)`);
  return new Worker(file, options);
}
