// The first-run walkthrough (package.json contributes.walkthroughs): what VS Code shows from it
// must exist in the VSIX and name commands the extension contributes.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
interface Step {
  id: string;
  title: string;
  description: string;
  media: { image?: string; markdown?: string; altText?: string };
  completionEvents?: string[];
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  contributes: {
    commands: Array<{ command: string }>;
    views: Record<string, Array<{ id: string }>>;
    walkthroughs: Array<{ id: string; title: string; steps: Step[] }>;
  };
};
const commands = new Set(pkg.contributes.commands.map((c) => c.command));
const views = new Set(Object.values(pkg.contributes.views).flatMap((v) => v.map((x) => x.id)));
const shipped = readFileSync(join(ROOT, '.vscodeignore'), 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('!'))
  .map((l) => new RegExp(`^${l.slice(1).replace(/\./g, '\\.').replace(/\*\*?/g, '.*')}$`));

describe('the first-run walkthrough', () => {
  const [walkthrough] = pkg.contributes.walkthroughs;

  it('goes from the fake cluster through both debuggers to a first finding', () => {
    assert.deepEqual(
      walkthrough?.steps.map((s) => s.id),
      ['cluster', 'debugger', 'go', 'finding'],
    );
  });

  it('shows pictures that exist and ship in the VSIX, each with a text for screen readers', () => {
    for (const step of walkthrough!.steps) {
      const media = step.media.image ?? step.media.markdown!;
      assert.ok(existsSync(join(ROOT, media)), `${step.id}: ${media} exists`);
      assert.ok(
        shipped.some((re) => re.test(media)),
        `${step.id}: ${media} is listed in .vscodeignore`,
      );
      if (step.media.image) assert.ok(step.media.altText, `${step.id}: alt text`);
    }
  });

  it('links each step to a command the extension contributes, or a view of its own', () => {
    for (const step of walkthrough!.steps) {
      const links = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
      assert.ok(links.length > 0, `${step.id} has a button`);
      for (const link of links)
        assert.ok(
          commands.has(link) || views.has(link.replace(/\.focus$/, '')),
          `${step.id}: ${link}`,
        );
      for (const e of step.completionEvents ?? []) {
        const [kind, what] = e.split(':');
        if (kind === 'onCommand') assert.ok(commands.has(what!), `${step.id}: ${e}`);
        if (kind === 'onView') assert.ok(views.has(what!), `${step.id}: ${e}`);
      }
    }
  });
});
