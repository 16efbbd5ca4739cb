/**
 * Grammar tests for the kubebuilder marker injection, tokenized with vscode-textmate and
 * vscode-oniguruma (the engine VS Code uses). The base grammar is a small test stand-in for
 * VS Code's Go grammar that scopes `//` comments the same way (comment.line.double-slash.go).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';

const HERE = __dirname;
const MARKERS = 'comment.kubebuilder.marker.injection';
let grammar: textmate.IGrammar;

before(async () => {
  const wasm = readFileSync(join(require.resolve('vscode-oniguruma'), '..', 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (p: string[]) => new oniguruma.OnigScanner(p),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      const file =
        scope === 'source.go'
          ? join(HERE, 'fixtures', 'go-subset.tmLanguage.json')
          : scope === MARKERS
            ? join(HERE, '..', 'kubebuilder-markers.tmLanguage.json')
            : null;
      return file ? textmate.parseRawGrammar(readFileSync(file, 'utf8'), file) : null;
    },
    // What `"injectTo": ["source.go"]` in package.json does inside VS Code.
    getInjections: (scope) => (scope === 'source.go' ? [MARKERS] : undefined),
  });
  const g = await registry.loadGrammar('source.go');
  assert.ok(g);
  grammar = g;
});

/** [text, innermost scope] for each token of one line. */
function tokens(line: string): [string, string][] {
  const { tokens: ts } = grammar.tokenizeLine(line, textmate.INITIAL);
  return ts.map((t) => [line.slice(t.startIndex, t.endIndex), t.scopes[t.scopes.length - 1]]);
}

function scopeOf(line: string, text: string): string[] {
  const { tokens: ts } = grammar.tokenizeLine(line, textmate.INITIAL);
  const at = line.indexOf(text);
  const t = ts.find((x) => x.startIndex <= at && at < x.endIndex);
  return t ? t.scopes : [];
}

describe('kubebuilder marker grammar', () => {
  it('highlights `// +kubebuilder:rbac:...` with name, parameters and values', () => {
    const line = '// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch';
    assert.ok(scopeOf(line, '+').includes('punctuation.definition.marker.kubebuilder'));
    assert.ok(scopeOf(line, 'kubebuilder').includes('entity.name.function.marker.kubebuilder'));
    assert.ok(scopeOf(line, 'groups').includes('variable.parameter.marker.kubebuilder'));
    assert.ok(scopeOf(line, 'apps').includes('string.unquoted.marker.kubebuilder'));
    assert.ok(scopeOf(line, ';').includes('punctuation.separator.list.marker.kubebuilder'));
    assert.ok(
      scopeOf(line, 'kubebuilder').includes('comment.line.double-slash.go'),
      'stays inside the comment',
    );
  });

  it('treats an upper-case segment with a value as part of the marker name', () => {
    const line = '// +kubebuilder:validation:Minimum=1';
    assert.ok(scopeOf(line, 'Minimum').includes('entity.name.function.marker.kubebuilder'));
    assert.ok(
      scopeOf('// +kubebuilder:default=1', 'default').includes(
        'entity.name.function.marker.kubebuilder',
      ),
    );
  });

  it('highlights `// +groupName=cache.example.com`', () => {
    const line = '// +groupName=cache.example.com';
    assert.ok(scopeOf(line, 'groupName').includes('entity.name.function.marker.kubebuilder'));
    assert.ok(scopeOf(line, '=').includes('keyword.operator.assignment.marker.kubebuilder'));
    assert.ok(scopeOf(line, 'cache.example.com').includes('string.unquoted.marker.kubebuilder'));
  });

  it('highlights a bare `// +optional`', () => {
    assert.ok(
      scopeOf('\t// +optional', 'optional').includes('entity.name.function.marker.kubebuilder'),
    );
  });

  it('scopes numbers, booleans and quoted strings in marker values', () => {
    const min = '// +kubebuilder:validation:Minimum=1';
    assert.ok(scopeOf(min, '1').includes('constant.numeric.marker.kubebuilder'));
    const pc =
      '// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`';
    assert.ok(scopeOf(pc, '"Ready"').includes('string.quoted.double.marker.kubebuilder'));
    assert.ok(scopeOf(pc, '`.status').includes('string.quoted.other.marker.kubebuilder'));
    assert.ok(scopeOf(pc, 'JSONPath').includes('variable.parameter.marker.kubebuilder'));
    assert.ok(
      scopeOf('// +kubebuilder:object:root=true', 'true').includes(
        'constant.language.boolean.marker.kubebuilder',
      ),
    );
  });

  it('leaves ordinary comments alone', () => {
    for (const line of [
      '// Reconcile moves the cluster + state',
      '// +1 for this',
      '// see +kubebuilder docs',
      'x := "// +optional"',
    ]) {
      assert.ok(
        tokens(line).every(([, scope]) => !scope.includes('marker.kubebuilder')),
        line,
      );
    }
  });

  it('does not highlight markers outside comments', () => {
    assert.ok(
      !scopeOf('var s = "+optional"', 'optional').some((s) => s.includes('marker.kubebuilder')),
    );
  });
});
