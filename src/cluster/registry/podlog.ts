/**
 * The `pods/log` subresource, as kube-apiserver's LogREST serves it with the kubelet behind it:
 * the PodLogOptions query (`container`, `follow`, `previous`, `sinceSeconds`, `sinceTime`,
 * `timestamps`, `tailLines`, `limitBytes`) decoded and validated as the apiserver does, the
 * container chosen as pod.LogLocation chooses it, then the kubelet's choice of which container's
 * log to read (validateContainerLogStatus, its errors answered as the apiserver's 400), and the
 * log streamed as text/plain — until the container ends or the client leaves with `follow`.
 * A pod bound to no node has no log yet: 204, as the apiserver's LocationStreamer answers it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Cluster } from '../cluster';
import { fieldForbidden, fieldInvalid, newBadRequest, newInvalid } from '../apimachinery/errors';
import type { FieldError } from '../apimachinery/errors';
import { int64Param, queryBool } from '../endpoints/decode';
import { parseMetaTime } from '../apimachinery/metatime';
import { isObject } from '../apimachinery/patch';
import type { ReadLogOptions } from '../controllers/containerlogs';
import type { KubeObject } from '../apimachinery/types';

type Obj = Record<string, unknown>;
const POD = { apiVersion: 'v1', kind: 'Pod' };
const rec = (v: unknown): Obj => (isObject(v) ? v : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  /** Epoch milliseconds. */
  sinceTime?: number;
  tailLines?: number;
  limitBytes?: number;
}

/** PodLogOptions from the query, as the parameter codec converts it (its errors are 400s). */
export function decodePodLogOptions(q: URLSearchParams): PodLogOptions {
  const sinceTimeParam = q.get('sinceTime');
  let sinceTime: number | undefined;
  if (sinceTimeParam) {
    const t = parseMetaTime(sinceTimeParam, false);
    if ('error' in t) throw newBadRequest(t.error);
    sinceTime = Date.parse(t.value);
  }
  const opt = <K extends string, V>(k: K, v: V | undefined) =>
    (v === undefined ? {} : { [k]: v }) as Partial<Record<K, V>>;
  return {
    container: q.get('container') ?? '',
    follow: queryBool(q, 'follow') === true,
    previous: queryBool(q, 'previous') === true,
    timestamps: queryBool(q, 'timestamps') === true,
    ...opt('sinceSeconds', int64Param(q, 'sinceSeconds')),
    ...opt('sinceTime', sinceTime),
    ...opt('tailLines', int64Param(q, 'tailLines')),
    ...opt('limitBytes', int64Param(q, 'limitBytes')),
  };
}

/** validation.ValidatePodLogOptions: a 422 on kind PodLogOptions. */
export function validatePodLogOptions(name: string, o: PodLogOptions): void {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0)
    errs.push(fieldInvalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1)
    errs.push(fieldInvalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined)
    errs.push(fieldForbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1)
    errs.push(fieldInvalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  if (errs.length) throw newInvalid({ group: '', kind: 'PodLogOptions' }, name, errs);
}

/** Every container name of the pod in VisitContainers' order: init, regular, ephemeral. */
function containerNames(pod: KubeObject): string[] {
  const spec = rec(pod.spec);
  return [spec.initContainers, spec.containers, spec.ephemeralContainers].flatMap((cs) =>
    list(cs).map((c) => String(c.name)),
  );
}

/** pod.LogLocation's validateContainer: the named container, or the only one. */
export function logContainer(pod: KubeObject, container: string): string {
  const name = pod.metadata.name!;
  if (!container) {
    const regular = list(rec(pod.spec).containers);
    if (regular.length === 1) return String(regular[0].name);
    if (regular.length === 0)
      throw newBadRequest(`a container name must be specified for pod ${name}`);
    throw newBadRequest(
      `a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`,
    );
  }
  if (!containerNames(pod).includes(container))
    throw newBadRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/**
 * The kubelet's validateContainerLogStatus: which container ID's log to read, from the pod's
 * container statuses; its errors reach the client as the apiserver's 400 with the kubelet's text.
 */
export function logContainerId(pod: KubeObject, container: string, previous: boolean): string {
  const st = rec(pod.status);
  const podName = pod.metadata.name!;
  const cs = [st.containerStatuses, st.initContainerStatuses, st.ephemeralContainerStatuses]
    .flatMap(list)
    .find((c) => c.name === container);
  const q = (s: string) => JSON.stringify(s);
  if (!cs) throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is not available`);
  const last = rec(rec(cs.lastState).terminated);
  const state = rec(cs.state);
  const lastId = typeof last.containerID === 'string' ? last.containerID : '';
  const terminated = (): never => {
    throw newBadRequest(`container ${q(container)} in pod ${q(podName)} is terminated`);
  };
  if (previous) {
    if (!lastId)
      throw newBadRequest(
        `previous terminated container ${q(container)} in pod ${q(podName)} not found`,
      );
    return lastId;
  }
  if (isObject(state.running)) return String(cs.containerID ?? '');
  if (isObject(state.terminated)) {
    const id = rec(state.terminated).containerID;
    if (typeof id === 'string' && id) return id;
    return lastId || terminated();
  }
  if (isObject(cs.lastState) && isObject(rec(cs.lastState).terminated))
    return lastId || terminated();
  if (isObject(state.waiting)) {
    const reason = String(rec(state.waiting).reason ?? '');
    const why =
      reason === 'ErrImagePull'
        ? "image can't be pulled"
        : reason === 'ImagePullBackOff'
          ? 'trying and failing to pull image'
          : reason;
    throw newBadRequest(
      `container ${q(container)} in pod ${q(podName)} is waiting to start: ${why}`,
    );
  }
  throw newBadRequest(
    `container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`,
  );
}

/** Serves GET pods/NAME/log; `closers` ends a following stream when the server closes. */
export function servePodLog(
  cluster: Cluster,
  req: IncomingMessage,
  res: ServerResponse,
  key: { namespace: string; name: string },
  q: URLSearchParams,
  closers: Set<() => void>,
  onStreaming: () => void,
): void {
  const opts = decodePodLogOptions(q);
  validatePodLogOptions(key.name, opts);
  const pod = cluster.get(POD, key);
  const container = logContainer(pod, opts.container);
  if (!rec(pod.spec).nodeName) {
    res.writeHead(204);
    res.end();
    return;
  }
  const id = logContainerId(pod, container, opts.previous);
  const read: ReadLogOptions = {
    timestamps: opts.timestamps,
    ...(opts.tailLines !== undefined ? { tailLines: opts.tailLines } : {}),
    ...(opts.limitBytes !== undefined ? { limitBytes: opts.limitBytes } : {}),
    ...(opts.sinceSeconds !== undefined
      ? { since: cluster.clock.now() - opts.sinceSeconds * 1000 }
      : opts.sinceTime !== undefined
        ? { since: opts.sinceTime }
        : {}),
  };
  if (!opts.follow) {
    const log = cluster.containerLogs.read(id, read);
    res.writeHead(200, {
      'Content-Type': 'text/plain',
      'Content-Length': log.length,
      'Cache-Control': 'no-cache, private',
    });
    res.end(log);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  onStreaming();
  let ended = false;
  let stop = () => {};
  const end = () => {
    if (ended) return;
    ended = true;
    stop();
    closers.delete(end);
    res.end();
  };
  closers.add(end);
  stop = cluster.containerLogs.follow(id, read, (chunk) => res.write(chunk), end);
  req.on('close', end);
  res.on('close', end);
}
