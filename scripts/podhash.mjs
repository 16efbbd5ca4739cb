// Builds tools/podhash, the judge of the fake cluster's pod-template-hash: a scratch module
// requiring k8s.io/kubernetes at the pinned release, so the hash it answers is
// kube-controller-manager's own controller.ComputeHash. Only the tests use it.
import { buildGoTool } from './gotool.mjs';
import { kubernetesGoMod, kubernetesRelease } from './kubernetes.mjs';

/** Builds (or reuses) tools/podhash for a release and answers the binary's path. */
export function buildPodhash(release = kubernetesRelease()) {
  return buildGoTool('podhash', kubernetesGoMod('reconcilestudio/podhash', release), {
    release,
    tidy: false,
  });
}
