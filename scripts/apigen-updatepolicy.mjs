// Generates generated/updatepolicy.json: the built-in kinds whose strategy refuses an update that
// names no resourceVersion (`AllowUnconditionalUpdate() bool { return false }`: Leases,
// PodDisruptionBudgets, webhook configurations, admission policies…). For the others the generic
// registry takes the stored object's version and the update goes through. Read from the
// strategies of the pinned release; the kind is the one type the strategy file asserts
// (`obj.(*coordination.Lease)`), its group its package's `const GroupName`.
//
// Run through scripts/generate.mjs.
import { readFileSync } from 'node:fs';
import { importsOf, registryStrategies } from './apigen-generation.mjs';
import { kubernetesRelease } from './kubernetes.mjs';

const CONDITIONAL_ONLY = /AllowUnconditionalUpdate\(\) bool \{\n\s*return false\n\}/;

export function generate(release = kubernetesRelease()) {
  const { files, groupOf } = registryStrategies(release);
  const conditionalOnly = new Set();
  for (const { file, where } of files) {
    const text = readFileSync(file, 'utf8');
    if (!CONDITIONAL_ONLY.test(text)) continue;
    // Custom resources' strategy reads unstructured objects: the cluster's own CR strategy says
    // the same (every CR update names its resourceVersion).
    if (where.includes('/pkg/registry/customresource/')) continue;
    const kinds = new Set(
      [...text.matchAll(/obj\.\(\*(\w+)\.(\w+)\)/g)].map((m) => `${m[1]}.${m[2]}`),
    );
    if (kinds.size !== 1)
      throw new Error(`${where}: cannot tell the kind of its strategy (${[...kinds].join(', ')})`);
    const [alias, kind] = [...kinds][0].split('.');
    conditionalOnly.add(`${groupOf(where, importsOf(text), alias, kind)}/${kind}`);
  }
  return { release, conditionalOnly: [...conditionalOnly].sort() };
}
