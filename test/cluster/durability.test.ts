import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { createCluster } from '../../src/cluster/builtins';
import { startServer } from '../../src/cluster/endpoints/server';
import type { Change, Journal } from '../../src/cluster/storage/store';

/** A journal whose changes become durable only when the test says so (a disk that is slow to fsync). */
class SlowDisk implements Journal {
  appended = 0;
  durableUpTo = 0;
  private waiters: Array<{ rv: number; resolve: () => void }> = [];
  append(c: Change): void {
    this.appended = c.rv;
  }
  get idle(): boolean {
    return this.durableUpTo >= this.appended;
  }
  sync(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rv: this.appended, resolve }));
  }
  fsync(): void {
    this.durableUpTo = this.appended;
    for (const w of this.waiters.splice(0)) w.resolve();
  }
}

test('over HTTPS, a create is answered and watchers see it only once the journal made it durable', async () => {
  const cluster = createCluster({ controllers: false });
  const server = await startServer({ cluster });
  const disk = new SlowDisk();
  cluster.store.setJournal(disk);
  const call = (method: string, path: string, body?: string, onData?: (d: string) => void) =>
    new Promise<number>((resolve, reject) => {
      request(
        `${server.url}${path}`,
        {
          method,
          ca: server.caPem,
          headers: {
            Authorization: `Bearer ${server.token}`,
            ...(body ? { 'Content-Type': 'application/json' } : {}),
          },
        },
        (r) => {
          r.setEncoding('utf8');
          if (onData) {
            r.on('data', onData);
            resolve(r.statusCode ?? 0);
          } else {
            r.resume();
            r.on('end', () => resolve(r.statusCode ?? 0));
          }
        },
      )
        .on('error', reject)
        .end(body);
    });
  try {
    const seen: Array<{ rv: number; durableUpTo: number }> = [];
    await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${cluster.store.resourceVersion}`,
      undefined,
      (d) => {
        for (const l of d.split('\n').filter(Boolean)) {
          const ev = JSON.parse(l) as { object: { metadata: { resourceVersion: string } } };
          seen.push({
            rv: Number(ev.object.metadata.resourceVersion),
            durableUpTo: disk.durableUpTo,
          });
        }
      },
    );
    const created = call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }),
    ).then((code) => ({ code, durableUpTo: disk.durableUpTo }));
    // The disk is slow: let the request and the watch run a while before the fsync returns.
    await new Promise((r) => setTimeout(r, 300));
    const rv = disk.appended;
    assert.ok(rv > 0, 'the create reached the journal');
    disk.fsync();
    const answer = await created;
    assert.equal(answer.code, 201);
    assert.ok(answer.durableUpTo >= rv, 'answered 201 before the create was durable');
    for (let i = 0; i < 50 && !seen.length; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(seen.length, 1);
    assert.ok(seen[0].durableUpTo >= seen[0].rv, 'the watch saw the create before it was durable');
  } finally {
    cluster.store.setJournal(undefined);
    await server.close();
    cluster.close();
  }
});
