/**
 * A kwok-like pod lifecycle in place of a scheduler and kubelets: every new pod is bound to the
 * fake node at once and becomes Running and Ready after the configured delay (on the cluster's
 * clock), with the conditions and container statuses a real kubelet reports. A pod whose
 * restartPolicy lets it finish (Never, OnFailure: a Job's) runs for its run time and then its
 * containers exit (runtime.ts says how long and with which code).
 */
import { createHash } from 'node:crypto';
import { apiData } from '../api/apidata';
import type { ControllerHost } from './controllerhost';
import { clone } from '../apimachinery/clone';
import { logfmtLine } from './containerlogs';
import { runSpecOf, terminatedStatus } from './podruntime';
import { targetNode } from './daemonset';
import { StatusError } from '../apimachinery/errors';
import type { TimerHandle } from '../../util/clock';
import type { KubeObject } from '../apimachinery/types';
import { rec } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;
export const NODE_NAME = 'reconcile-studio-node';
const POD = { apiVersion: 'v1', kind: 'Pod' };

/** A container's runtime ID, unique to this pod (by uid) and container, as containerd's are. */
function containerId(p: KubeObject, c: Obj): string {
  const hex = createHash('sha256')
    .update(`${p.metadata.uid ?? ''}/${String(c.name)}`)
    .digest('hex');
  return `containerd://${hex}`;
}

/** The one node pods run on, Ready, like a kwok node. */
export function fakeNode(now: string): KubeObject {
  const cond = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: NODE_NAME,
      labels: {
        'kubernetes.io/hostname': NODE_NAME,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node-role.kubernetes.io/control-plane': '',
        type: 'fake',
      },
    },
    spec: {},
    status: {
      capacity: { cpu: '32', memory: '256Gi', pods: '1000' },
      allocatable: { cpu: '32', memory: '256Gi', pods: '1000' },
      conditions: [
        cond(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond(
          'PIDPressure',
          'False',
          'KubeletHasSufficientPID',
          'kubelet has sufficient PID available',
        ),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.2' },
        { type: 'Hostname', address: NODE_NAME },
      ],
      nodeInfo: {
        // The node runs the release the cluster serves (apidata.ts).
        kubeletVersion: apiData().version.gitVersion,
        kubeProxyVersion: apiData().version.gitVersion,
        containerRuntimeVersion: 'containerd://1.7.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
        osImage: 'Reconcile Studio fake node',
        kernelVersion: '6.0.0',
        machineID: '',
        systemUUID: '',
        bootID: '',
      },
    },
  };
}

export interface KubeletOptions {
  /** How long a new pod takes to become Running and Ready. Default 2000 ms. */
  podReadyDelayMs?: number;
  /**
   * How long the fake kubelet takes to stop a pod deleted gracefully (at most its grace period);
   * the pod stays Terminating until then. Default 0: at once, after the MODIFIED event.
   */
  podTerminationDelayMs?: number;
  /**
   * How long the containers of a pod that runs to completion (restartPolicy Never or OnFailure)
   * run before they exit, unless the pod's annotation says otherwise (podruntime.ts). Default 5000 ms.
   */
  podRunTimeMs?: number;
}

export function startKubelet(cluster: ControllerHost, opts: KubeletOptions = {}): () => void {
  const podReadyDelayMs = opts.podReadyDelayMs ?? 2000;
  const podTerminationDelayMs = opts.podTerminationDelayMs ?? 0;
  const podRunTimeMs = opts.podRunTimeMs ?? 5000;
  const timers = new Map<string, TimerHandle>();
  let ipSeq = 2;

  const containers = (p: KubeObject): Obj[] =>
    Array.isArray(rec(p.spec).containers) ? (rec(p.spec).containers as Obj[]) : [];

  /** The container prints a line (containerlogs.ts keeps it for pods/log). */
  function log(p: KubeObject, c: Obj, msg: string, fields: Record<string, string | number> = {}) {
    const now = cluster.clock.now();
    const line = logfmtLine(now, msg, { container: String(c.name), ...fields });
    cluster.containerLogs.write(containerId(p, c), now, line);
  }

  function writeStatus(p: KubeObject, status: Obj): void {
    const next = clone(p);
    next.status = status;
    try {
      cluster.update(next, { subresource: 'status', fieldManager: 'kubelet' });
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  function start(ns: string, name: string): void {
    const p = cluster.get(POD, { namespace: ns, name });
    if (p.metadata.deletionTimestamp) return;
    const now = cluster.now();
    for (const c of containers(p)) {
      cluster.recordEvent(
        p,
        'Normal',
        'Pulled',
        `Container image "${String(c.image)}" already present on machine`,
        'kubelet',
      );
      cluster.recordEvent(
        p,
        'Normal',
        'Created',
        `Created container: ${String(c.name)}`,
        'kubelet',
      );
      cluster.recordEvent(p, 'Normal', 'Started', `Started container ${String(c.name)}`, 'kubelet');
    }
    const ip = `10.244.${(ipSeq >> 8) & 255}.${ipSeq++ & 255}`;
    const cond = (type: string) => ({
      type,
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: now,
    });
    writeStatus(p, {
      ...rec(p.status),
      phase: 'Running',
      conditions: [
        cond('PodReadyToStartContainers'),
        cond('Initialized'),
        cond('Ready'),
        cond('ContainersReady'),
        cond('PodScheduled'),
      ],
      hostIP: '10.0.0.2',
      hostIPs: [{ ip: '10.0.0.2' }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: rec(p.status).startTime ?? now,
      containerStatuses: containers(p).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: `docker.io/library/${String(c.image)}@sha256:${'0'.repeat(64)}`,
        containerID: containerId(p, c),
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now } },
        lastState: {},
      })),
    });
    for (const c of containers(p)) {
      log(p, c, 'Container started', { image: String(c.image) });
      log(p, c, 'Container is ready');
    }
    scheduleExit(p);
  }

  /** A pod that runs to completion: its containers exit after the run time. */
  function scheduleExit(p: KubeObject): void {
    const run = runSpecOf(p, podRunTimeMs);
    if (!run) return;
    const ns = p.metadata.namespace!;
    const name = p.metadata.name!;
    const key = `${ns}/${name}`;
    timers.set(
      key,
      cluster.clock.setTimeout(() => {
        timers.delete(key);
        const cur = cluster.peek(POD, { namespace: ns, name });
        if (!cur || cur.metadata.uid !== p.metadata.uid || cur.metadata.deletionTimestamp) return;
        exit(cur, run.exitCode);
      }, run.runTimeMs),
    );
  }

  /**
   * The containers exit with `code`: the pod Succeeded or Failed, or, restartPolicy OnFailure and
   * a failure, the kubelet restarts them (restartCount grows; the Job controller counts restarts
   * against its backoffLimit) and they run again.
   */
  function exit(p: KubeObject, code: number): void {
    const now = cluster.now();
    for (const c of containers(p)) {
      log(p, c, 'Container terminated', { exitCode: code, reason: code ? 'Error' : 'Completed' });
      if (!(code && rec(p.spec).restartPolicy === 'OnFailure'))
        cluster.containerLogs.end(containerId(p, c));
    }
    const status = rec(p.status);
    const statuses = Array.isArray(status.containerStatuses)
      ? (status.containerStatuses as Obj[])
      : [];
    if (code && rec(p.spec).restartPolicy === 'OnFailure') {
      writeStatus(p, {
        ...status,
        containerStatuses: statuses.map((cs) => ({
          ...cs,
          restartCount: Number(cs.restartCount ?? 0) + 1,
          lastState: terminatedStatus(cs, code, now),
          state: { running: { startedAt: now } },
        })),
      });
      const cur = cluster.peek(POD, { namespace: p.metadata.namespace, name: p.metadata.name! });
      if (cur) scheduleExit(cur);
      return;
    }
    const reason = code ? 'PodFailed' : 'PodCompleted';
    const cond = (type: string, value: string, why?: string) => ({
      type,
      status: value,
      lastProbeTime: null,
      lastTransitionTime: now,
      ...(why ? { reason: why } : {}),
    });
    const scheduled = (Array.isArray(status.conditions) ? (status.conditions as Obj[]) : []).find(
      (c) => c.type === 'PodScheduled',
    );
    writeStatus(p, {
      ...status,
      phase: code ? 'Failed' : 'Succeeded',
      conditions: [
        cond('PodReadyToStartContainers', 'False'),
        cond('Initialized', 'True', reason),
        cond('Ready', 'False', reason),
        cond('ContainersReady', 'False', reason),
        scheduled ?? cond('PodScheduled', 'True'),
      ],
      containerStatuses: statuses.map((cs) => ({
        ...cs,
        ready: false,
        started: false,
        state: terminatedStatus(cs, code, now),
      })),
    });
  }

  function onPod(initial: KubeObject): void {
    let p = initial;
    const ns = p.metadata.namespace!;
    const name = p.metadata.name!;
    const key = `${ns}/${name}`;
    if (timers.has(key) || rec(p.status).phase !== 'Pending' || rec(p.status).startTime) return;
    const now = cluster.now();
    // Bound at once, as the scheduler would (nodeName may change while unset): to the node its
    // required affinity names (a DaemonSet's pod), else to the fake node.
    if (!rec(p.spec).nodeName) {
      const pinned = targetNode(p);
      const node =
        pinned && cluster.peek({ apiVersion: 'v1', kind: 'Node' }, { name: pinned })
          ? pinned
          : NODE_NAME;
      try {
        // Through pods/binding, as kube-scheduler binds: PodScheduled set, nothing else owned.
        cluster.bindPod({ namespace: ns, name }, node);
      } catch (err) {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
        return;
      }
      const boundPod = cluster.peek({ apiVersion: 'v1', kind: 'Pod' }, { namespace: ns, name });
      if (!boundPod) return;
      p = boundPod;
      cluster.recordEvent(
        p,
        'Normal',
        'Scheduled',
        `Successfully assigned ${ns}/${name} to ${node}`,
        'default-scheduler',
      );
    }
    // Scheduled; containers creating until the delay passes.
    writeStatus(p, {
      ...rec(p.status),
      phase: 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      ],
      hostIP: '10.0.0.2',
      startTime: now,
      containerStatuses: containers(p).map((c) => ({
        name: c.name,
        image: c.image,
        imageID: '',
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {},
      })),
    });
    timers.set(
      key,
      cluster.clock.setTimeout(() => {
        timers.delete(key);
        try {
          start(ns, name);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }, podReadyDelayMs),
    );
  }

  /** Stops a pod being deleted gracefully, then ends its deletion with a grace period of 0. */
  function kill(p: KubeObject): void {
    for (const c of containers(p)) {
      cluster.recordEvent(
        p,
        'Normal',
        'Killing',
        `Stopping container ${String(c.name)}`,
        'kubelet',
      );
      if (!cluster.containerLogs.has(containerId(p, c))) continue;
      log(p, c, 'Received SIGTERM, shutting down', {
        gracePeriodSeconds: p.metadata.deletionGracePeriodSeconds ?? 0,
      });
      log(p, c, 'Container terminated', { exitCode: 0, reason: 'Completed' });
      cluster.containerLogs.end(containerId(p, c));
    }
    try {
      cluster.delete(
        POD,
        { namespace: p.metadata.namespace, name: p.metadata.name! },
        { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid! } },
      );
    } catch (err) {
      if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  /**
   * A graceful delete of a pod on this node: stop it within its grace period (after the
   * cluster's podTerminationDelayMs, at once by default), as the kubelet's pod killer does.
   */
  function onTerminating(p: KubeObject, key: string): void {
    cluster.clock.clearTimeout(timers.get(key));
    timers.delete(key);
    const grace = (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
    const delay = Math.min(grace, podTerminationDelayMs);
    if (delay <= 0) return kill(p);
    timers.set(
      key,
      cluster.clock.setTimeout(() => {
        timers.delete(key);
        const cur = cluster.peek(POD, { namespace: p.metadata.namespace, name: p.metadata.name! });
        if (cur && cur.metadata.uid === p.metadata.uid) kill(cur);
      }, delay),
    );
  }

  const unsub = cluster.subscribe((c) => {
    if (c.storageKey !== '/pods') return;
    const key = `${c.object.metadata.namespace}/${c.object.metadata.name}`;
    if (c.type === 'DELETED') {
      cluster.clock.clearTimeout(timers.get(key));
      timers.delete(key);
      // The runtime removes a deleted pod's containers, and their logs with them.
      for (const ctr of containers(c.object))
        cluster.containerLogs.remove(containerId(c.object, ctr));
      return;
    }
    if (c.type === 'ADDED') onPod(c.object);
    const md = c.object.metadata;
    if (
      c.type === 'MODIFIED' &&
      md.deletionGracePeriodSeconds &&
      md.deletionGracePeriodSeconds !== c.old?.metadata.deletionGracePeriodSeconds &&
      Boolean(rec(c.object.spec).nodeName)
    )
      onTerminating(c.object, key);
  });
  return () => {
    unsub();
    for (const t of timers.values()) cluster.clock.clearTimeout(t);
    timers.clear();
  };
}
