import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { holdBanner } from '../../../webviews/debugger/hold';
import { holdWarnings } from '../../../src/vscode/model/holdsafety';
import { useDom, viewOf } from './dom';
import { heldState } from './states';

useDom();

describe('the hold banner', () => {
  it('is not shown for a hold on the embedded cluster, whose clock stands still', () => {
    assert.equal(holdBanner(viewOf(heldState())), null);
  });

  it('says how long a real cluster has waited and what the manager put at risk', () => {
    const state = heldState();
    state.hold = {
      since: Date.now() - 12_000,
      cluster: 'kind-dev',
      warnings: holdWarnings({ lease: 'shop-system/abc', webhookPort: 9443 }),
    };
    const banner = holdBanner(viewOf(state))!;
    const lines = Array.from(banner.querySelectorAll('p')).map((p) => p.textContent ?? '');
    assert.match(lines[0], /^Held for 0:1[23] on kind-dev/);
    // Both fire 10 s into the hold: 12 s in, each says it has happened.
    assert.equal(banner.querySelectorAll('.hold-fired').length, 2);
    assert.match(lines[1], /Lease shop-system\/abc/);
    assert.match(lines[2], /webhooks on port 9443/);
    holdBanner(viewOf(heldState())); // stops its ticker
  });
});
