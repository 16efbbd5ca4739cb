import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parsePromText, sampleValue } from '../../src/runtime/promtext';

const TEXT = `# HELP workqueue_depth Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{controller="webapp",name="webapp",priority=""} 3
workqueue_adds_total{controller="webapp",name="webapp"} 12
controller_runtime_reconcile_total{controller="webapp",result="success"} 7
controller_runtime_reconcile_total{controller="webapp",result="error"} 2
weird{msg="a \\"quoted\\", value\\nnext"} 1.5e3 1700000000000
up +Inf
`;

describe('Prometheus text format', () => {
  it('reads samples with their labels and values', () => {
    const s = parsePromText(TEXT);
    assert.equal(s.length, 6);
    assert.equal(sampleValue(s, 'workqueue_depth', { name: 'webapp' }), 3);
    assert.equal(sampleValue(s, 'controller_runtime_reconcile_total', { result: 'error' }), 2);
    assert.equal(sampleValue(s, 'workqueue_adds_total'), 12);
    assert.equal(sampleValue(s, 'workqueue_depth', { name: 'other' }), undefined);
  });

  it('unescapes label values and reads exponents and infinities', () => {
    const s = parsePromText(TEXT);
    const w = s.find((x) => x.name === 'weird')!;
    assert.equal(w.labels.msg, 'a "quoted", value\nnext');
    assert.equal(w.value, 1500);
    assert.equal(sampleValue(s, 'up'), Infinity);
  });
});
