/**
 * The deliberate differences between the fake and the reference: each entry names the scenarios
 * (a glob on the scenario's name) and the answer's paths (a glob on the difference's path) it
 * covers, and why the difference is intended.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Difference } from './compare';

export interface AllowEntry {
  /** A glob, or several: the scenarios the entry covers. */
  scenario: string | string[];
  /** A glob, or several: the answer's paths the entry covers. */
  path: string | string[];
  reason: string;
}

function glob(pattern: string): RegExp {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`);
}

export class Allowlist {
  private readonly entries: { entry: AllowEntry; scenarios: RegExp[]; paths: RegExp[] }[];

  constructor(file: string) {
    const doc = parse(readFileSync(file, 'utf8')) as { entries?: AllowEntry[] } | null;
    this.entries = (doc?.entries ?? []).map((entry) => {
      if (!entry.reason?.trim())
        throw new Error(
          `${file}: the entry for ${String(entry.scenario)} ${entry.path} has no reason`,
        );
      const scenarios = Array.isArray(entry.scenario) ? entry.scenario : [entry.scenario];
      const paths = Array.isArray(entry.path) ? entry.path : [entry.path];
      return { entry, scenarios: scenarios.map(glob), paths: paths.map(glob) };
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /** The entry that allows this difference, if any. */
  allows(scenario: string, d: Difference): AllowEntry | undefined {
    return this.entries.find(
      (e) => e.scenarios.some((s) => s.test(scenario)) && e.paths.some((p) => p.test(d.path)),
    )?.entry;
  }
}
