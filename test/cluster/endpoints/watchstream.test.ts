import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createCluster } from '../../../src/cluster/builtins';
import { startServer, type ServerHandle } from '../../../src/cluster/endpoints/server';
import { CM, bigConfigMap } from '../helpers';

/** A watch of the ConfigMaps in `default` from `resourceVersion`, once its response has started. */
function watchConfigMaps(server: ServerHandle, resourceVersion: string): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    request(
      `${server.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${resourceVersion}`,
      { ca: server.caPem, headers: { Authorization: `Bearer ${server.token}` } },
      resolve,
    )
      .on('error', reject)
      .end();
  });
}

test('a watcher that stops reading is closed once its unsent events pass the limit, not buffered without bound', async () => {
  const cluster = createCluster({ controllers: false });
  const server = await startServer({ cluster, watchBacklogBytes: 1024 * 1024 });
  const warn = console.warn;
  const warnings: string[] = [];
  console.warn = (m: string) => warnings.push(m);
  try {
    const { created: base, update } = bigConfigMap(cluster, 256);
    const res = await watchConfigMaps(server, base.metadata.resourceVersion!);
    assert.equal(res.statusCode, 200);
    res.pause(); // a client that never reads
    const UPDATES = 100; // 25 MiB of events: more than loopback socket buffers and the limit hold
    for (let i = 0; i < UPDATES; i++) {
      update(i);
      await new Promise((r) => setImmediate(r));
    }
    // Now read: the stream ends before all the events (the server cut it), or delivers them all.
    let events = 0;
    let partial = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      events += lines.length;
    });
    res.resume();
    await new Promise<void>((resolve) => {
      res.on('close', resolve);
      res.on('data', () => events === UPDATES && resolve());
    });
    assert.ok(events < UPDATES, `the watcher got all ${events} events: it was never closed`);
    assert.match(warnings.join('\n'), /forcing configmaps watcher close due to unresponsiveness/);
  } finally {
    console.warn = warn;
    await server.close();
    cluster.close();
  }
});

test('a big object’s watch event is its stored JSON in the event envelope, byte for byte', async () => {
  const cluster = createCluster({ controllers: false });
  const server = await startServer({ cluster });
  try {
    const { created: base, update } = bigConfigMap(cluster, 200); // past SEPARATE_HEADERS_BYTES
    const lines: string[] = [];
    const res = await watchConfigMaps(server, base.metadata.resourceVersion!);
    const got = new Promise<void>((resolve) => {
      let partial = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        const split = (partial + d).split('\n');
        partial = split.pop()!;
        lines.push(...split);
        if (lines.length >= 2) resolve();
      });
    });
    update(1);
    const first = cluster.jsonOf(cluster.peek(CM, { namespace: 'default', name: 'big' })!);
    update(2);
    const second = cluster.jsonOf(cluster.peek(CM, { namespace: 'default', name: 'big' })!);
    await got;
    res.destroy();
    assert.deepEqual(lines, [
      `{"type":"MODIFIED","object":${first}}`,
      `{"type":"MODIFIED","object":${second}}`,
    ]);
  } finally {
    await server.close();
    cluster.close();
  }
});
