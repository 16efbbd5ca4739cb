/** May one point of a Go function run after another? (go/flow.ts, read off the syntax tree) */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reaches } from '../../src/analysis/go/flow';
import { analyzer } from './helpers';

/** Does `from()` reach `to()` in a function whose body is `body`? */
async function flows(body: string): Promise<boolean> {
  const a = await analyzer();
  const file = a.parseGo(
    'f.go',
    `package p\n\nfunc f(c bool, xs []int, ch chan int) {\n${body}\n}\n`,
  );
  try {
    const fn = file.root.descendantsOfType('function_declaration')[0];
    const fnBody = fn.childForFieldName('body')!;
    const call = (name: string) =>
      fnBody
        .descendantsOfType('call_expression')
        .find((c) => c.childForFieldName('function')?.text === name)!;
    return reaches(fnBody, call('from'), call('to'));
  } finally {
    file.tree.delete();
  }
}

describe('control flow', () => {
  it('goes on to a later statement', async () => {
    assert.equal(await flows('from()\nto()'), true);
  });
  it('does not go back to an earlier statement outside a loop', async () => {
    assert.equal(await flows('to()\nfrom()'), false);
  });
  it('goes back through a loop around both', async () => {
    assert.equal(await flows('for _, x := range xs {\n_ = x\nto()\nfrom()\n}'), true);
  });
  it('does not go back through a loop when the rest of the body returns', async () => {
    assert.equal(await flows('for range xs {\nto()\nfrom()\nreturn\n}'), false);
  });
  it('stops at a return after it in a block the target is not in', async () => {
    assert.equal(await flows('if c {\nfrom()\nreturn\n}\nto()'), false);
  });
  it('stops at a panic, and at an if/else whose arms both return', async () => {
    assert.equal(await flows('if c {\nfrom()\npanic("x")\n}\nto()'), false);
    assert.equal(
      await flows('if c {\nfrom()\nif c {\nreturn\n} else {\nreturn\n}\n}\nto()'),
      false,
    );
  });
  it('goes on past an if whose only arm returns', async () => {
    assert.equal(await flows('if c {\nfrom()\nif c {\nreturn\n}\n}\nto()'), true);
  });
  it('goes on past break and continue, which leave the loop or start it again', async () => {
    assert.equal(await flows('for range xs {\nfrom()\ncontinue\n}\nto()'), true);
    assert.equal(await flows('for range xs {\nfrom()\nbreak\n}\nto()'), true);
  });
  it('stops at a switch with a default, or a select, whose every case returns', async () => {
    assert.equal(
      await flows('if c {\nfrom()\nswitch {\ncase c:\nreturn\ndefault:\nreturn\n}\n}\nto()'),
      false,
    );
    assert.equal(await flows('if c {\nfrom()\nselect {\ncase <-ch:\nreturn\n}\n}\nto()'), false);
  });
  it('goes on past a switch without a default, whose cases all return', async () => {
    assert.equal(await flows('if c {\nfrom()\nswitch {\ncase c:\nreturn\n}\n}\nto()'), true);
  });
  it('never goes from one arm of an if to the other', async () => {
    assert.equal(await flows('if c {\nfrom()\n} else {\nto()\n}'), false);
  });
  it('never goes from one switch case to another, unless a loop is around both', async () => {
    assert.equal(await flows('switch {\ncase c:\nfrom()\ndefault:\nto()\n}'), false);
    assert.equal(
      await flows('for range xs {\nswitch {\ncase c:\nfrom()\ndefault:\nto()\n}\n}'),
      true,
    );
  });
  it('goes from the condition of an if into its arms', async () => {
    assert.equal(await flows('if from() {\nto()\n}'), true);
  });
  it('takes a closure as run where it is written; its return ends only the closure', async () => {
    assert.equal(await flows('_ = func() error {\nfrom()\nreturn nil\n}()\nto()'), true);
  });
});
