import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type {
  CodeAction,
  Diagnostic,
  Hover,
  PublishDiagnosticsParams,
} from 'vscode-languageserver';
import { applyEdits } from './helpers';

const ROOT = join(__dirname, '..', '..');
const SAMPLE = join(ROOT, 'test', 'analysis', 'fixtures', 'seed_controller.go');
const URI = pathToFileURL(SAMPLE).toString();
const TEXT = readFileSync(SAMPLE, 'utf8');

let proc: ChildProcess;
let conn: MessageConnection;
const published: PublishDiagnosticsParams[] = [];
let waiters: (() => void)[] = [];

/** Resolves with the next diagnostics published for URI. */
function nextDiagnostics(): Promise<Diagnostic[]> {
  const seen = published.length;
  return new Promise((resolve) => {
    const check = (): void => {
      const hit = published.slice(seen).find((p) => p.uri === URI);
      if (hit) resolve(hit.diagnostics);
      else waiters.push(check);
    };
    check();
  });
}

before(async () => {
  proc = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'analysis', 'server.ts'), '--stdio'],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  conn = createMessageConnection(
    new StreamMessageReader(proc.stdout!),
    new StreamMessageWriter(proc.stdin!),
  );
  conn.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    published.push(p);
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  });
  conn.onRequest('workspace/configuration', () => [
    { severity: { 'update-unfetched': 'warning' }, debounceMs: 10 },
  ]);
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: null,
    capabilities: { workspace: { configuration: true } },
  });
  await conn.sendNotification('initialized', {});
});

after(() => {
  conn?.dispose();
  proc?.kill();
});

describe('language server', () => {
  let diagnostics: Diagnostic[] = [];

  it('publishes diagnostics with source, rule code, rule page and severity from settings', async () => {
    const got = nextDiagnostics();
    await conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri: URI, languageId: 'go', version: 1, text: TEXT },
    });
    diagnostics = await got;
    assert.deepEqual(
      diagnostics.map((d) => d.code),
      ['update-unfetched', 'status-error-ignored'],
    );
    assert.equal(diagnostics[0].source, 'reconcile-studio');
    assert.equal(diagnostics[0].severity, 2, 'update-unfetched lowered to warning by the setting');
    assert.match(diagnostics[1].codeDescription!.href, /docs\/rules\/status-error-ignored\.md$/);
  });

  it('offers the quick fix and a suppression as code actions', async () => {
    const d = diagnostics.find((x) => x.code === 'status-error-ignored')!;
    const actions: CodeAction[] = await conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri: URI },
      range: d.range,
      context: { diagnostics: [d] },
    });
    assert.deepEqual(
      actions.map((a) => a.title),
      ['Check the status write error and return it', 'Ignore status-error-ignored on this line'],
    );
    const fixed = applyEdits(TEXT, actions[0].edit!.changes![URI]);
    assert.match(fixed, /if err := r\.Status\(\)\.Update\(ctx, &cr\); err != nil \{/);
  });

  it('hovers a status write with what it does to the loop', async () => {
    const lines = TEXT.split('\n');
    const line = lines.findIndex((l) => l.includes('if err := r.Status().Update'));
    const hover: Hover = await conn.sendRequest('textDocument/hover', {
      textDocument: { uri: URI },
      position: { line, character: lines[line].indexOf('Update') + 1 },
    });
    assert.match((hover.contents as { value: string }).value, /client\.Status\(\)\.Update/);
  });

  it('re-analyzes after an incremental edit', async () => {
    const lines = TEXT.split('\n');
    const line = lines.findIndex((l) => l.includes('_ = r.Status().Update'));
    const col = lines[line].indexOf('_ = ');
    const got = nextDiagnostics();
    // Turn `_ = r.Status()...` into `err = r.Status()...` — still unchecked, then remove the line.
    await conn.sendNotification('textDocument/didChange', {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [
        {
          range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } },
          text: '',
        },
      ],
    });
    const after = await got;
    assert.ok(col >= 0);
    assert.deepEqual(
      after.map((d) => d.code),
      ['update-unfetched'],
    );
  });
});
