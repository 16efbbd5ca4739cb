/**
 * The in-process cluster with its admission webhooks, for the editor's TypeScript reconciler: a
 * served write calls the Mutating-/ValidatingWebhookConfigurations' webhooks (the HTTP handler's
 * `admitted.ts`), an in-process one does not, since the cluster's verbs are synchronous. This
 * runs an in-process write the way the handler runs a served one — through a WebhookSession,
 * again from a fresh copy of its input until every webhook it reaches has answered — so a
 * TypeScript reconciler's writes meet the same webhooks a Go operator's do. The answer is then a
 * promise, marked with the webhook calls the write made (`webhookCallsOf`), which the runtime's
 * client puts on the write's ApiCall. With no webhook configuration stored a write stays
 * synchronous, as before (the virtual clock's ordering is kept). Reads, watches and discovery
 * are the cluster's own.
 */
import type { WebhookCallRecord } from '../cluster/admission/webhook/callrecord';
import { MUTATING, VALIDATING } from '../cluster/admission/webhook/config';
import { WebhookSession, runWithSession } from '../cluster/admission/webhook/session';
import { clone } from '../cluster/apimachinery/clone';
import type { UserInfo } from '../cluster/auth/user';
import type { Cluster } from '../cluster/cluster';
import { DEFAULT_USER } from '../cluster/endpoints/server';
import type { ApiServer } from './apiserver';

const calls = new WeakMap<object, WebhookCallRecord[]>();

/** The webhook calls an in-process write's answer was made with (filled as they are made). */
export function webhookCallsOf(v: unknown): WebhookCallRecord[] | undefined {
  return typeof v === 'object' && v !== null ? calls.get(v) : undefined;
}

/** Marks `to` with the webhook calls `from` was marked with, if any (a delayed answer's). */
export function passWebhookCalls(from: unknown, to: object): void {
  const c = webhookCallsOf(from);
  if (c) calls.set(to, c);
}

type Options = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export class WebhookApiServer implements ApiServer {
  constructor(
    private readonly cluster: Cluster,
    /**
     * Who the AdmissionReviews name as the writer: by default the user the faults file and the
     * served cluster's own token know the in-process runtime as (FaultyApiServer's).
     */
    private readonly user: UserInfo = {
      username: DEFAULT_USER,
      groups: ['system:authenticated'],
    },
  ) {}

  get clock() {
    return this.cluster.clock;
  }

  readonly get: ApiServer['get'] = (type, key) => this.cluster.get(type, key);
  readonly list: ApiServer['list'] = (type, opts) => this.cluster.list(type, opts);
  readonly watch: ApiServer['watch'] = (type, opts, onEvent, onClose) =>
    this.cluster.watch(type, opts, onEvent, onClose);
  readonly resources: NonNullable<ApiServer['resources']> = () => this.cluster.resources();
  readonly peek: NonNullable<ApiServer['peek']> = (type, key) => this.cluster.peek(type, key);
  readonly recordEvent: NonNullable<ApiServer['recordEvent']> = (...args) =>
    this.cluster.recordEvent(...args);

  readonly create: ApiServer['create'] = (obj, opts) =>
    this.admitted('CreateOptions', obj, (o) => this.cluster.create(o, opts));

  readonly update: ApiServer['update'] = (obj, opts) =>
    this.admitted('UpdateOptions', obj, (o) => this.cluster.update(o, opts));

  readonly patch: ApiServer['patch'] = (type, key, patch, patchType, opts) =>
    this.admitted('PatchOptions', patch, (p) => this.cluster.patch(type, key, p, patchType, opts));

  readonly delete: ApiServer['delete'] = (type, key, opts) =>
    this.admitted('DeleteOptions', opts, (o) => this.cluster.delete(type, key, o));

  /** `write` on `input` as it is, or through a session (each run on a copy) when webhooks may apply. */
  private admitted<I, T>(kind: Options, input: I, write: (input: I) => T): T | Promise<T> {
    if (!this.webhooksStored()) return write(input);
    const session = new WebhookSession({
      user: this.user,
      options: { kind, apiVersion: 'meta.k8s.io/v1' },
    });
    const answer = runWithSession(session, () =>
      this.cluster.withSession(session, () => write(clone(input))),
    );
    calls.set(answer, session.calls);
    return answer;
  }

  private webhooksStored(): boolean {
    for (const type of [MUTATING, VALIDATING]) for (const _ of this.cluster.scan(type)) return true;
    return false;
  }
}
