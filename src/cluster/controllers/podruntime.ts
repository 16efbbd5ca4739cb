/**
 * What the fake kubelet's containers do when they run: there is no image to run, so a pod that
 * runs to completion (restartPolicy Never or OnFailure, as a Job's pods) runs for a run time and
 * exits with a code. The cluster's podRunTimeMs sets the run time for every such pod; a pod (or
 * a Job's pod template) overrides it with annotations:
 *   reconcile-studio/run-seconds: "30"   how long its containers run
 *   reconcile-studio/exit-code: "1"      the code they exit with (default 0: success)
 * A pod with restartPolicy Always (a Deployment's) runs until it is deleted, as a server does.
 */
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;

export const RUN_SECONDS_ANNOTATION = 'reconcile-studio/run-seconds';
export const EXIT_CODE_ANNOTATION = 'reconcile-studio/exit-code';

export interface RunSpec {
  runTimeMs: number;
  exitCode: number;
}

/** How long a pod's containers run and how they exit; undefined for a pod that runs until deleted. */
export function runSpecOf(p: KubeObject, defaultRunTimeMs: number): RunSpec | undefined {
  const policy = isObject(p.spec) ? p.spec.restartPolicy : undefined;
  if (policy !== 'Never' && policy !== 'OnFailure') return undefined;
  const ann = p.metadata.annotations ?? {};
  const seconds = Number(ann[RUN_SECONDS_ANNOTATION]);
  const code = Number(ann[EXIT_CODE_ANNOTATION]);
  return {
    runTimeMs:
      ann[RUN_SECONDS_ANNOTATION] !== undefined && seconds >= 0 ? seconds * 1000 : defaultRunTimeMs,
    exitCode: Number.isInteger(code) && code >= 0 && code <= 255 ? code : 0,
  };
}

/** A container's `terminated` state after it exited with `code` (from its running state). */
export function terminatedStatus(cs: Obj, code: number, now: string): Obj {
  const running = isObject(cs.state) && isObject(cs.state.running) ? cs.state.running : {};
  return {
    terminated: {
      exitCode: code,
      reason: code ? 'Error' : 'Completed',
      startedAt: running.startedAt ?? now,
      finishedAt: now,
      containerID: cs.containerID,
    },
  };
}
