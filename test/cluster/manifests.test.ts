import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadManifests } from '../../src/cluster/manifests';
import { WIDGET, newCluster } from './helpers';
import YAML from 'yaml';
import { widgetCrd } from './helpers';

test('loadManifests applies CRDs and Namespaces first, whatever the file order', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-man-'));
  try {
    mkdirSync(join(dir, 'a-samples'));
    writeFileSync(
      join(dir, 'a-samples', 'w.yaml'),
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: team}\nspec: {size: 1}\n',
    );
    writeFileSync(
      join(dir, 'b-ns.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n',
    );
    writeFileSync(join(dir, 'c-crd.yaml'), YAML.stringify(widgetCrd()));
    const { cluster } = newCluster({ controllers: false });
    const res = loadManifests(cluster, [dir]);
    assert.deepEqual(res.errors, []);
    assert.deepEqual(
      res.applied.map((a) => a.kind),
      ['CustomResourceDefinition', 'Namespace', 'Widget'],
    );
    assert.equal(cluster.get(WIDGET, { namespace: 'team', name: 'w1' }).metadata.name, 'w1');
    cluster.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('malformed YAML is reported with file and line; bad objects with the apiserver message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-man-'));
  try {
    writeFileSync(
      join(dir, 'bad.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n',
    );
    writeFileSync(
      join(dir, 'invalid.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n',
    );
    const { cluster } = newCluster({ controllers: false });
    const res = loadManifests(cluster, [dir]);
    assert.deepEqual(
      res.applied.map((a) => a.name),
      ['ok'],
    );
    const yamlErr = res.errors.find((e) => e.file.endsWith('bad.yaml'))!;
    assert.ok(yamlErr.line >= 5, `line ${yamlErr.line}`);
    const invalid = res.errors.find((e) => e.file.endsWith('invalid.yaml'))!;
    assert.match(invalid.message, /ConfigMap "Bad_Name" is invalid: metadata.name/);
    cluster.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
