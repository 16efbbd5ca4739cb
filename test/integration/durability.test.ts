import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClient, serve } from './serve';

const CMS = '/api/v1/namespaces/default/configmaps';

test('serve --state keeps every create it answered 201 when killed with SIGKILL mid-burst', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rs-durable-'));
  const state = join(dir, 'cluster.json');
  try {
    const a = await serve(['--state', state, '--no-controllers']);
    const api = apiClient(a);
    const acknowledged: string[] = [];
    const exited = new Promise((r) => a.child.once('exit', r));
    let killed = false;
    let next = 0;
    // 16 clients create ConfigMaps back to back; the server is killed once 300 were answered 201,
    // with the other clients' creates still in flight.
    const client = async () => {
      while (!killed) {
        const name = `cm-${next++}`;
        const r = await api
          .call('POST', CMS, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name },
            data: { k: name },
          })
          .catch(() => undefined);
        if (r?.code === 201) acknowledged.push(name);
        if (acknowledged.length >= 300 && !killed) {
          killed = true;
          a.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, client));
    await exited;
    api.close();
    rmSync(a.dir, { recursive: true, force: true });

    const b = await serve(['--state', state, '--no-controllers']);
    const api2 = apiClient(b);
    try {
      const list = await api2.call('GET', CMS);
      assert.equal(list.code, 200);
      const stored = new Set(
        (JSON.parse(list.text) as { items: Array<{ metadata: { name: string } }> }).items.map(
          (o) => o.metadata.name,
        ),
      );
      const lost = acknowledged.filter((n) => !stored.has(n));
      assert.deepEqual(
        lost,
        [],
        `${lost.length} of ${acknowledged.length} acknowledged creates lost`,
      );
      assert.ok(acknowledged.length >= 300);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith('.tmp')),
        [],
        'temp files of interrupted saves are removed at start',
      );
    } finally {
      api2.close();
      await b.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
