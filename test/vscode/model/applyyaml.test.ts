import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyYamlText } from '../../../src/vscode/model/applyyaml';
import { EmbeddedSource } from '../../../src/vscode/embeddedsource';
import { newCluster, widgetCrd, WIDGET } from '../../cluster/helpers';

function served() {
  const { cluster } = newCluster({ controllers: false });
  cluster.create(widgetCrd());
  return { cluster, source: new EmbeddedSource(cluster) };
}

const widget = (name: string, spec: string) => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
  namespace: default
spec:
${spec}`;

/** Each problem as `line: message`. */
function lines(text: string, problems: Array<{ message: string; range: { start: number } }>) {
  return problems.map((p) => `${text.slice(0, p.range.start).split('\n').length}: ${p.message}`);
}

test('a refused document has its causes on its own lines; the documents around it are applied', async () => {
  const { cluster, source } = served();
  const text = [
    widget('a', '  size: 1\n'),
    widget('b', '  size: "big"\n  color: green\n'),
    widget('c', '  size: 3\n'),
  ].join('---\n');
  const outcome = await applyYamlText(source, text);
  assert.deepEqual(outcome.applied, ['Widget default/a', 'Widget default/c']);
  assert.equal(outcome.refused.length, 1);
  const [refused] = outcome.refused;
  assert.equal(refused!.object, 'Widget default/b');
  assert.deepEqual(lines(text, refused!.problems), [
    '15: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
    '16: spec.color: Unsupported value: "green": supported values: "red", "blue"',
  ]);
  assert.match(refused!.message, /^Widget\.example\.com "b" is invalid: /);
  assert.equal(cluster.peek(WIDGET, { namespace: 'default', name: 'b' }), undefined);
});

test('a 409 Conflict on a stale resourceVersion is placed on the resourceVersion', async () => {
  const { cluster, source } = served();
  const first = await applyYamlText(source, widget('a', '  size: 1\n'));
  assert.deepEqual(first.refused, []);
  const rv = cluster.get(WIDGET, { namespace: 'default', name: 'a' }).metadata.resourceVersion!;
  // Someone else writes it after the copy was taken.
  cluster.patch(WIDGET, { namespace: 'default', name: 'a' }, { spec: { size: 2 } }, 'merge');
  const text = widget('a', '  size: 5\n').replace(
    '  namespace: default\n',
    `  namespace: default\n  resourceVersion: "${rv}"\n`,
  );
  const outcome = await applyYamlText(source, text);
  assert.deepEqual(lines(text, outcome.refused[0]?.problems ?? []), [
    '6: Operation cannot be fulfilled on widgets.example.com "a": the object has been modified; please apply your changes to the latest version and try again',
  ]);
});

test('a syntax error anywhere sends nothing, and is on its line', async () => {
  const { cluster, source } = served();
  const text = `${widget('a', '  size: 1\n')}---\n${widget('b', '  size: a: b\n')}`;
  const outcome = await applyYamlText(source, text);
  assert.deepEqual(outcome.applied, []);
  assert.deepEqual(lines(text, outcome.syntax), [
    '15: Nested mappings are not allowed in compact mappings',
  ]);
  assert.equal(cluster.peek(WIDGET, { namespace: 'default', name: 'a' }), undefined);
});
