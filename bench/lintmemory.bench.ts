/**
 * lint's peak memory per MB of Go input. Each case runs `lintPaths` in a fresh child process and
 * reads that process's peak RSS; the floor is the same run over an empty folder, so the figure is
 * what the input itself costs: (peak − floor) / input size. Cases: one file at the default size
 * bound (2 MiB, the largest lint reads without --max-file-size) and 8 MiB spread over 1 MiB files
 * in 8 packages (trees are freed package by package, so this should cost about as much as one).
 * Prints figures only; nothing asserts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_FILE_BYTES } from '../src/cli/lintinput';

const ROOT = join(__dirname, '..');
const SEED = readFileSync(join(ROOT, 'test', 'analysis', 'fixtures', 'seed_controller.go'), 'utf8');
const MiB = 1024 * 1024;

/** A Go file of about `bytes` bytes: the seed controller repeated with distinct names. */
function goFile(bytes: number): string {
  const cut = SEED.indexOf('type MyReconciler');
  const parts = [SEED.slice(0, cut)];
  let size = Buffer.byteLength(parts[0]);
  for (let i = 0; size < bytes; i++) {
    const body = SEED.slice(cut)
      .replaceAll('MyReconciler', `R${i}Reconciler`)
      .replaceAll('buildDesiredDeployment', `build${i}`);
    const n = Buffer.byteLength(body);
    if (size + n > bytes) break;
    parts.push(body);
    size += n;
  }
  return parts.join('');
}

/** Peak RSS in bytes of a child process that lints `dir`. */
function peakRss(dir: string): number {
  const code = `require('./src/cli/lint').lintPaths([${JSON.stringify(dir)}]).then((r) => {
    if (r.notifications.length) throw new Error(JSON.stringify(r.notifications));
    console.log(process.resourceUsage().maxRSS * 1024);
  });`;
  const res = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`lint child failed: ${res.stderr}`);
  return Number(res.stdout.trim());
}

function main(): void {
  const base = mkdtempSync(join(tmpdir(), 'rs-bench-lintmem-'));
  try {
    const empty = join(base, 'empty');
    mkdirSync(empty);
    const one = join(base, 'one');
    mkdirSync(one);
    const big = goFile(DEFAULT_MAX_FILE_BYTES);
    writeFileSync(join(one, 'big_controller.go'), big);
    const many = join(base, 'many');
    const chunk = goFile(MiB);
    for (let i = 0; i < 8; i++) {
      mkdirSync(join(many, `pkg${i}`), { recursive: true });
      writeFileSync(join(many, `pkg${i}`, 'c_controller.go'), chunk);
    }
    const floor = peakRss(empty);
    console.log(
      `lint peak RSS per MiB of Go input (floor: linting an empty folder, ${(floor / MiB).toFixed(0)} MiB)`,
    );
    const report = (label: string, dir: string, inputBytes: number): void => {
      const peak = peakRss(dir);
      const perMiB = (peak - floor) / inputBytes;
      console.log(
        `  ${label.padEnd(40)} peak ${(peak / MiB).toFixed(0)} MiB, ${(peak - floor) / MiB > 0 ? ((peak - floor) / MiB).toFixed(0) : 0} MiB over the floor: ${perMiB.toFixed(1)} MiB per MiB of input`,
      );
    };
    report(
      `one ${(Buffer.byteLength(big) / MiB).toFixed(1)} MiB file`,
      one,
      Buffer.byteLength(big),
    );
    report(
      `8 packages of one ${(Buffer.byteLength(chunk) / MiB).toFixed(1)} MiB file`,
      many,
      Buffer.byteLength(chunk) * 8,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

main();
