/**
 * The settings contract, shared by the extension and the language server: which settings exist,
 * the type of each, and how a raw value becomes a typed one. The defaults are package.json's
 * (`contributes.configuration`), bundled in at build time by esbuild's JSON import, so a default
 * is written once, where the Settings editor also reads it. No `vscode` here: the language server
 * and the unit tests import this file too.
 */
import { contributes } from '../package.json';
import type { SeverityConfig } from './analysis/rules';

/** The configuration section every setting sits under (`reconcileStudio.cluster.serve`, …). */
export const SETTINGS_SECTION = 'reconcileStudio';

/** What a setting's value is; one kind per JSON schema shape package.json uses. */
interface KindTypes {
  boolean: boolean;
  number: number;
  string: string;
  'string[]': string[];
  /** `diagnostics.severity`: rule id → severity name (validated per rule by effectiveSeverity). */
  severities: SeverityConfig;
}
type Kind = keyof KindTypes;

/**
 * Every setting, by section and name (`cluster.autoStart` is `reconcileStudio.cluster.autoStart`).
 * A unit test holds this and package.json to the same list; add a setting to both.
 */
export const SETTINGS = {
  cluster: {
    autoStart: 'boolean',
    manifests: 'string[]',
    serve: 'boolean',
    keepState: 'boolean',
    podReadyDelayMs: 'number',
    allowWrites: 'boolean',
  },
  runtime: { hangTimeoutMs: 'number' },
  go: { runCommand: 'string', warmBuildCache: 'boolean' },
  debugger: { breakOnStart: 'boolean' },
  diagnostics: { enabled: 'boolean', severity: 'severities', debounceMs: 'number' },
} as const satisfies Record<string, Record<string, Kind>>;

type Contract = typeof SETTINGS;
export type SettingsSection = keyof Contract;
export type Settings = {
  [S in SettingsSection]: {
    -readonly [K in keyof Contract[S]]: Contract[S][K] extends Kind
      ? KindTypes[Contract[S][K]]
      : never;
  };
};

/** What the extension passes the language server at start (`initializationOptions`). */
export interface ServerInitializationOptions {
  diagnostics: Settings['diagnostics'];
}

/** The part of a package.json configuration property the reader needs. */
interface PropertySchema {
  default?: unknown;
  minimum?: number;
}
const PROPERTIES: Record<string, PropertySchema | undefined> = contributes.configuration.properties;

/** A setting's full name, as package.json and the Settings editor spell it. */
export function settingName(section: SettingsSection, key: string): string {
  return `${SETTINGS_SECTION}.${section}.${key}`;
}

function schemaOf(section: SettingsSection, key: string): PropertySchema {
  const schema = PROPERTIES[settingName(section, key)];
  // Only reachable when SETTINGS and package.json disagree, which the contract test catches.
  if (!schema) throw new Error(`setting ${settingName(section, key)} is not in package.json`);
  return schema;
}

/** Whether `value` is a usable value of `kind` under the setting's schema. */
function fits(kind: Kind, value: unknown, schema: PropertySchema): boolean {
  switch (kind) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (schema.minimum === undefined || value >= schema.minimum)
      );
    case 'string':
      // A blank command is no command: it means the default.
      return typeof value === 'string' && value.trim() !== '';
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'severities':
      return (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every((v) => typeof v === 'string')
      );
  }
}

/**
 * One section's settings from what the editor (or the language client) handed over: each value
 * that fits the contract is kept, anything missing or malformed (a hand-edited settings.json the
 * editor only warns about) falls back to package.json's default.
 */
export function sectionFrom<S extends SettingsSection>(section: S, raw: unknown): Settings[S] {
  const given = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [key, kind] of Object.entries(SETTINGS[section]) as Array<[string, Kind]>) {
    const schema = schemaOf(section, key);
    const value = given[key];
    out[key] = copyOf(kind, fits(kind, value, schema) ? value : schema.default);
  }
  return out as Settings[S];
}

/**
 * A plain copy the caller may keep and change: VS Code hands objects and arrays out as read-only
 * proxies (which structuredClone refuses), and package.json's defaults must stay as they are.
 */
function copyOf(kind: Kind, value: unknown): unknown {
  if (kind === 'string') return (value as string).trim();
  if (kind === 'string[]') return [...(value as string[])];
  if (kind === 'severities') return { ...(value as SeverityConfig) };
  return value;
}

/** Every section, each read through `get(section)` (the editor's configuration, or a test's). */
export function settingsFrom(get: (section: SettingsSection) => unknown): Settings {
  const sections = Object.keys(SETTINGS) as SettingsSection[];
  return Object.fromEntries(sections.map((s) => [s, sectionFrom(s, get(s))])) as Settings;
}

/** The settings nobody has changed: package.json's defaults, typed. */
export function defaultSettings(): Settings {
  return settingsFrom(() => undefined);
}
