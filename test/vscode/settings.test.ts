// src/settings.ts sits above src/vscode and src/analysis; both read their settings through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  SETTINGS,
  defaultSettings,
  sectionFrom,
  settingName,
  type SettingsSection,
} from '../../src/settings';
import { RULES } from '../../src/analysis/rules';

interface Schema {
  type?: string;
  default?: unknown;
  items?: { type?: string };
  properties?: Record<string, { default?: unknown; enum?: string[] }>;
}
// Read from disk, not imported: the test checks the contract against the file VS Code reads.
const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Schema> } };
};
const properties = pkg.contributes.configuration.properties;

const contract = Object.entries(SETTINGS).flatMap(([section, keys]) =>
  Object.entries(keys).map(([key, kind]) => ({
    section: section as SettingsSection,
    key,
    kind,
    name: settingName(section as SettingsSection, key),
  })),
);

test('every setting package.json contributes is in the contract, and only those', () => {
  assert.deepEqual(contract.map((s) => s.name).sort(), Object.keys(properties).sort());
});

test('each setting has the JSON schema type its contract kind reads', () => {
  const schemaOf: Record<string, (s: Schema) => boolean> = {
    boolean: (s) => s.type === 'boolean',
    number: (s) => s.type === 'number' || s.type === 'integer',
    string: (s) => s.type === 'string',
    'string[]': (s) => s.type === 'array' && s.items?.type === 'string',
    severities: (s) => s.type === 'object',
  };
  for (const s of contract) {
    assert.ok(schemaOf[s.kind](properties[s.name]), `${s.name} is ${s.kind} in the contract`);
  }
});

test('the defaults read are package.json defaults, each a valid value of its kind', () => {
  const defaults = defaultSettings() as unknown as Record<string, Record<string, unknown>>;
  for (const s of contract) {
    assert.ok('default' in properties[s.name], `${s.name} declares a default`);
    assert.deepEqual(defaults[s.section][s.key], properties[s.name].default, s.name);
  }
  const fits: Record<string, (v: unknown) => boolean> = {
    boolean: (v) => typeof v === 'boolean',
    number: (v) => typeof v === 'number',
    string: (v) => typeof v === 'string' && v.trim() !== '',
    'string[]': (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
    severities: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  };
  for (const s of contract) {
    assert.ok(fits[s.kind](properties[s.name].default), `${s.name}'s default is a ${s.kind}`);
  }
});

test('the severity setting lists every rule with the rule registry default severity', () => {
  const perRule = properties['reconcileStudio.diagnostics.severity'].properties ?? {};
  assert.deepEqual(Object.keys(perRule).sort(), RULES.map((r) => r.id).sort());
  for (const r of RULES) {
    assert.equal(perRule[r.id].default, r.defaultSeverity, r.id);
    assert.deepEqual(perRule[r.id].enum, ['error', 'warning', 'information', 'hint', 'off']);
  }
});

test('values the editor hands over are kept when they fit and replaced by the default when not', () => {
  const cluster = sectionFrom('cluster', {
    autoStart: true,
    manifests: ['deploy/crds'],
    serve: 'yes',
    podReadyDelayMs: -5,
  });
  assert.equal(cluster.autoStart, true);
  assert.deepEqual(cluster.manifests, ['deploy/crds']);
  assert.equal(cluster.serve, properties['reconcileStudio.cluster.serve'].default, 'not a boolean');
  assert.equal(
    cluster.podReadyDelayMs,
    properties['reconcileStudio.cluster.podReadyDelayMs'].default,
    'below the minimum',
  );
  assert.equal(cluster.allowWrites, false, 'missing');
  assert.equal(sectionFrom('go', { runCommand: '   ' }).runCommand, 'go run ./cmd');
  assert.equal(sectionFrom('go', { runCommand: ' make run ' }).runCommand, 'make run');
  assert.deepEqual(sectionFrom('diagnostics', { severity: ['error'] }).severity, {});
  assert.deepEqual(sectionFrom('diagnostics', 'garbage'), defaultSettings().diagnostics);
});

test('each read gets its own copy of an array or object default', () => {
  sectionFrom('cluster', undefined).manifests.push('mutated');
  assert.deepEqual(
    sectionFrom('cluster', undefined).manifests,
    properties['reconcileStudio.cluster.manifests'].default,
  );
});

test('values handed over as read-only proxies (as VS Code hands them) are copied out', () => {
  const frozen = <T extends object>(o: T): T =>
    new Proxy(o, {
      set: () => {
        throw new TypeError('read-only');
      },
    });
  const cluster = sectionFrom('cluster', frozen({ manifests: frozen(['deploy/crds']) }));
  cluster.manifests.push('more');
  assert.deepEqual(cluster.manifests, ['deploy/crds', 'more']);
  const diagnostics = sectionFrom(
    'diagnostics',
    frozen({ severity: frozen({ 'spec-write': 'off' }) }),
  );
  assert.deepEqual(diagnostics.severity, { 'spec-write': 'off' });
});
