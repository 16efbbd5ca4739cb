/**
 * The runtime's in-process calls under the faults file: an ApiServer that asks a FaultInjector
 * (cluster/faults.ts) about each call before handing it to the real one, exactly as the served
 * cluster does for each HTTP request. Calls no fault touches stay synchronous (the virtual
 * clock's ordering is kept); latency waits on the cluster's clock, so it is virtual time in a
 * simulation. The in-process runtime identifies itself as a kubebuilder operator binary does
 * (user agent `manager/…`), so one faults file aims at a Go operator and its TypeScript twin alike.
 */
import { DEFAULT_USER } from '../cluster/endpoints/server';
import type { FaultEffect, FaultInjector, FaultRequest } from '../cluster/faults';
import { markInjected, watchUnderFault } from '../cluster/faults';
import type { AuditVerb } from '../cluster/endpoints/audit';
import type { KubeObject, TypeRef } from '../cluster/apimachinery/types';
import { RealClock, type VirtualClock } from '../util/clock';
import {
  isPromise,
  resourceName,
  type ApiServer,
  type MaybePromise,
  type WatchHandle,
} from './apiserver';
import { passWebhookCalls } from './webhookapiserver';

export const IN_PROCESS_USER_AGENT = 'manager/v0.0.0 (reconcile-studio) in-process';

export class FaultyApiServer implements ApiServer {
  // Present exactly when the wrapped server has them: callers test for them (a remote server has
  // no peek, and the client then diffs against the informer or a GET).
  readonly resources?: ApiServer['resources'];
  readonly peek?: ApiServer['peek'];
  readonly recordEvent?: ApiServer['recordEvent'];

  constructor(
    private readonly inner: ApiServer,
    private readonly faults: FaultInjector,
  ) {
    if (inner.resources) this.resources = inner.resources.bind(inner);
    if (inner.peek) this.peek = inner.peek.bind(inner);
    // Cluster events (the recorder) are not API calls a fault applies to: passed through as is.
    if (inner.recordEvent) this.recordEvent = inner.recordEvent.bind(inner);
  }

  get clock() {
    return this.inner.clock;
  }

  // Each call has the shape ApiServer gives it (one signature, in apiserver.ts): asked of the
  // faults, then handed to the wrapped server.

  readonly get: ApiServer['get'] = (type, key) =>
    this.call(this.request('get', type, key.namespace, key.name, ''), () =>
      this.inner.get(type, key),
    );

  readonly list: ApiServer['list'] = (type, opts) => {
    const r = this.request('list', type, opts?.namespace, '', '', opts?.resourceVersion);
    return this.call(r, () => this.inner.list(type, opts));
  };

  readonly create: ApiServer['create'] = (obj, opts) => {
    const r = this.request('create', obj, obj.metadata.namespace, '', '', undefined, obj);
    return this.call(r, () => this.inner.create(obj, opts));
  };

  readonly update: ApiServer['update'] = (obj, opts) => {
    const r = this.request(
      'update',
      obj,
      obj.metadata.namespace,
      obj.metadata.name ?? '',
      opts?.subresource ?? '',
    );
    return this.call(r, () => this.inner.update(obj, opts));
  };

  readonly patch: ApiServer['patch'] = (type, key, patch, patchType, opts) => {
    const r = this.request('patch', type, key.namespace, key.name, opts?.subresource ?? '');
    return this.call(r, () => this.inner.patch(type, key, patch, patchType, opts));
  };

  readonly delete: ApiServer['delete'] = (type, key, opts) => {
    const r = this.request('delete', type, key.namespace, key.name, '');
    return this.call(r, () => this.inner.delete(type, key, opts));
  };

  readonly watch: ApiServer['watch'] = (type, opts, onEvent, onClose) => {
    const r = this.request('watch', type, opts.namespace, '', '', opts.resourceVersion);
    const fault = r && this.faults.decide(r);
    let closed = false;
    const end = () => {
      if (closed) return;
      closed = true;
      handle.stop();
      onClose?.();
    };
    const handle: WatchHandle = watchUnderFault(
      fault,
      this.clock ?? new RealClock(),
      onEvent,
      end,
      (deliver) =>
        this.inner.watch(type, opts, deliver, (err) => {
          if (closed) return;
          closed = true;
          onClose?.(err);
        }),
    );
    return {
      stop: () => {
        closed = true;
        handle.stop();
      },
    };
  };

  private request(
    verb: AuditVerb,
    type: TypeRef,
    namespace: string | undefined,
    name: string,
    subresource: string,
    resourceVersion?: string,
    body?: KubeObject,
  ): FaultRequest | undefined {
    // No rules (an editor session whose faults file is empty): no per-call cost beyond this.
    if (this.faults.size === 0) return undefined;
    return {
      verb,
      group: type.apiVersion.includes('/') ? type.apiVersion.split('/')[0] : '',
      resource: resourceName(this.inner, type),
      subresource,
      namespace: namespace ?? '',
      name,
      userAgent: IN_PROCESS_USER_AGENT,
      user: DEFAULT_USER,
      resourceVersion: resourceVersion ?? '',
      ...(body?.metadata.name ? { objectName: body.metadata.name } : {}),
    };
  }

  /** Runs `fn` under the fault the injector picks, if any; unchanged (and synchronous) if none. */
  private call<T>(r: FaultRequest | undefined, fn: () => T): T | Promise<Awaited<T>> {
    const effect = r && this.faults.decide(r);
    if (!effect) return fn();
    const answer = (): T => {
      const err = failureOf(effect, r.verb);
      if (err) throw err;
      return fn();
    };
    if (effect.latencyMs <= 0) return answer();
    const clock = this.clock ?? new RealClock();
    const delayed = new Promise<Awaited<T>>((resolve, reject) => {
      clock.setTimeout(() => {
        try {
          const v = answer();
          // A write the webhooks admitted (WebhookApiServer): its calls go with the answer.
          passWebhookCalls(v, delayed);
          if (isPromise(v as MaybePromise<unknown>))
            (v as Promise<Awaited<T>>).then(resolve, reject);
          else resolve(v as Awaited<T>);
        } catch (err) {
          reject(err);
        }
      }, effect.latencyMs);
    });
    // A reconcile freezes the virtual clock while it runs: the latency is then its own time to let
    // pass, or the answer would wait for a clock that cannot move.
    const lapsing = clock as Partial<Pick<VirtualClock, 'frozen' | 'elapse'>>;
    if (lapsing.frozen && lapsing.elapse) void lapsing.elapse(effect.latencyMs);
    // The answer is marked, so the trace's row for the call names the fault that delayed it.
    return markInjected(delayed, effect.fault);
  }
}

function failureOf(effect: FaultEffect, verb: AuditVerb): Error | undefined {
  return effect.error ?? (verb === 'list' ? effect.gone : undefined);
}
