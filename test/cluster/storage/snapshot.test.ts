/**
 * Chunked lists as client-go's pager and the Python client's `_continue` read them: every page is
 * read at the first page's resourceVersion (a consistent snapshot, as etcd serves it), and a
 * continue token that fell out of the window is a 410 carrying a token that goes on at the newest
 * resourceVersion. `resourceVersionMatch=Exact` reads at the resourceVersion it names, or 410.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INCONSISTENT_CONTINUE, LIST_TOO_OLD } from '../../../src/cluster/storage/snapshot';
import { CM, NS } from '../helpers';
import { served } from '../http';
import type { Served } from '../http';

interface List {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Array<{ metadata: { name: string }; data?: Record<string, string> }>;
}
interface Failure {
  code: number;
  reason: string;
  message: string;
  metadata: { continue?: string };
}

const WINDOW = 20;
let s: Served;
before(async () => {
  s = await served({}, { watchWindow: WINDOW });
  s.cluster.create({ ...NS, metadata: { name: 'other' } });
});
after(() => s.close());

const CMS = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const cm = (namespace: string, name: string, v: string) => ({
  ...CM,
  metadata: { name, namespace },
  data: { v },
});
async function list(path: string): Promise<List> {
  const r = await s.get(path);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as List;
}
const names = (l: List) => l.items.map((o) => `${o.metadata.name}=${o.data?.v}`);

describe('paging', () => {
  it('reads every page at the first page’s resourceVersion', async () => {
    s.cluster.create({ ...NS, metadata: { name: 'paged' } });
    for (const n of ['a', 'b', 'c', 'd']) s.cluster.create(cm('paged', n, '1'));
    const first = await list(`${CMS('paged')}?limit=2`);
    assert.deepEqual(names(first), ['a=1', 'b=1']);
    assert.ok(first.metadata.continue);
    // Changes after the first page: none of them show on the next one.
    s.cluster.update(cm('paged', 'c', '2'));
    s.cluster.delete(CM, { namespace: 'paged', name: 'd' });
    s.cluster.create(cm('paged', 'bb', '1'));
    s.cluster.create(cm('paged', 'e', '1'));
    const next = await list(
      `${CMS('paged')}?limit=2&continue=${encodeURIComponent(first.metadata.continue!)}`,
    );
    assert.deepEqual(names(next), ['c=1', 'd=1']);
    assert.equal(next.metadata.resourceVersion, first.metadata.resourceVersion);
    assert.equal(next.metadata.continue, undefined);
    // A fresh list sees them all.
    assert.deepEqual(names(await list(CMS('paged'))), ['a=1', 'b=1', 'bb=1', 'c=2', 'e=1']);
  });

  it('answers 410 with a continue token at the newest resourceVersion once the window has moved on', async () => {
    s.cluster.create({ ...NS, metadata: { name: 'old' } });
    for (const n of ['a', 'b', 'c']) s.cluster.create(cm('old', n, '1'));
    const first = await list(`${CMS('old')}?limit=1`);
    for (let i = 0; i <= WINDOW; i++) s.cluster.create(cm('other', `x${i}`, '1'));
    s.cluster.update(cm('old', 'c', '2'));
    const r = await s.get(
      `${CMS('old')}?limit=1&continue=${encodeURIComponent(first.metadata.continue!)}`,
    );
    assert.equal(r.status, 410, r.body);
    const st = JSON.parse(r.body) as Failure;
    assert.equal(st.reason, 'Expired');
    assert.equal(st.message, INCONSISTENT_CONTINUE);
    assert.ok(st.metadata.continue);
    // The token it hands out goes on after the same key, at the newest resourceVersion.
    const rest = await list(`${CMS('old')}?continue=${encodeURIComponent(st.metadata.continue!)}`);
    assert.deepEqual(names(rest), ['b=1', 'c=2']);
  });
});

describe('resourceVersionMatch=Exact', () => {
  it('lists at the resourceVersion named', async () => {
    s.cluster.create({ ...NS, metadata: { name: 'exact' } });
    const one = s.cluster.create(cm('exact', 'one', '1'));
    s.cluster.update(cm('exact', 'one', '2'));
    s.cluster.create(cm('exact', 'two', '1'));
    const rv = one.metadata.resourceVersion!;
    const l = await list(`${CMS('exact')}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.deepEqual(names(l), ['one=1']);
    assert.equal(l.metadata.resourceVersion, rv);
  });

  it('answers 410 for a resourceVersion older than the window', async () => {
    for (let i = 0; i <= WINDOW; i++) s.cluster.create(cm('other', `y${i}`, '1'));
    const r = await s.get(`${CMS('exact')}?resourceVersion=2&resourceVersionMatch=Exact`);
    assert.equal(r.status, 410, r.body);
    assert.equal((JSON.parse(r.body) as Failure).message, LIST_TOO_OLD);
  });
});
