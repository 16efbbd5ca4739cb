/**
 * The conversion webhook as the cluster's synchronous verbs reach it (conversion.ts does the call
 * and its checks). A served request runs its verb inside a WebhookSession
 * (admission/webhook/session.ts): a read gathers the conversions it needs and is run again once
 * they are answered (one call per object, made together, as the watch cache converts each item
 * of a list); a write needs each conversion before it goes on (the old object at the request's
 * version, the new one at the storage version) and is run again from the start with the answer,
 * never after it has committed. The answer to a write is converted after it, by the handler
 * (`convertAnswer`), so a committed write is never run twice.
 *
 * The webhook is sent the object without its resourceVersion, as kube-apiserver's storage decodes
 * it (the versioner sets the revision afterwards), and the converted object gets it back.
 *
 * A failed conversion is the apiserver's 500 with reason Unknown: the converter's error is not an
 * API status, so the handler serves it as is (`conversion webhook for …, Kind=… failed: …`).
 *
 * Without a session (the in-process API: built-in controllers, the TypeScript runtime) nothing can
 * wait for a webhook, so an object is served as the None strategy would serve it.
 */
import { clone } from '../apimachinery/clone';
import { newUnknownStorageError } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';
import { PendingCalls } from '../admission/webhook/session';
import type { PendingCall, WebhookSession } from '../admission/webhook/session';
import type { ServiceMap } from '../admission/webhook/client';
import type { ResourceType } from '../registry/registry';
import { convertByWebhook, convertsByWebhook } from './conversion';

/** Whether an object stored at `stored` is converted by a webhook to be served as `t`. */
export function needsWebhook(t: ResourceType, stored: string | undefined): boolean {
  return convertsByWebhook(t.conversion) && stored !== undefined && stored !== t.apiVersion;
}

export class CrConverter {
  constructor(private readonly services: ServiceMap) {}

  /** The call converting `sent` (an object without its resourceVersion) to `to`. */
  private pending(t: ResourceType, sent: KubeObject, to: string): PendingCall {
    const conv = t.conversion!;
    const services = this.services;
    const text = JSON.stringify(sent);
    return {
      key: `conversion\0${t.crd ?? ''}\0${to}\0${text}`,
      kind: 'conversion',
      webhook: t.crd ?? '',
      call: () => convertByWebhook(conv, services, JSON.parse(text) as KubeObject, to),
    };
  }

  /**
   * `o` (its JSON `text`) at `to` in a read: the converted object when the call was made, else a
   * stand-in (the run's answer is thrown away: the session runs it again once the call is
   * answered).
   */
  read(
    session: WebhookSession,
    t: ResourceType,
    o: KubeObject,
    to: string,
    text: string,
  ): KubeObject {
    const sent = withoutResourceVersion(JSON.parse(text) as KubeObject);
    const outcome = session.collect(this.pending(t, sent, to));
    if (!outcome) {
      sent.apiVersion = to;
      return withResourceVersion(sent, o);
    }
    if (!outcome.ok) throw newUnknownStorageError(outcome.error.message);
    return withResourceVersion(clone(outcome.value as KubeObject), o);
  }

  /** `o` at `to` in a write: the converted object, or PendingCalls that makes the call. */
  write(session: WebhookSession, t: ResourceType, o: KubeObject, to: string): KubeObject {
    const p = this.pending(t, withoutResourceVersion(clone(o)), to);
    const outcome = session.outcome(p.key);
    if (!outcome) throw new PendingCalls([p]);
    if (!outcome.ok) throw newUnknownStorageError(outcome.error.message);
    return withResourceVersion(clone(outcome.value as KubeObject), o);
  }

  /** One object at `to`, called now (a watch event, a write's answer). */
  async convert(t: ResourceType, o: KubeObject, to: string): Promise<KubeObject> {
    try {
      const sent = withoutResourceVersion(clone(o));
      const out = await convertByWebhook(t.conversion!, this.services, sent, to);
      return withResourceVersion(out as KubeObject, o);
    } catch (err) {
      throw newUnknownStorageError(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * A write's answer at the request's version: the object (or a list's items, for
   * deletecollection) the write left at the storage version, converted.
   */
  async convertAnswer<T>(t: ResourceType, answer: T): Promise<T> {
    if (!isObject(answer) || !convertsByWebhook(t.conversion)) return answer;
    const a = answer as Record<string, unknown>;
    if (Array.isArray(a.items)) {
      const items = await Promise.all(
        (a.items as KubeObject[]).map((o) =>
          needsWebhook(t, o.apiVersion) ? this.convert(t, o, t.apiVersion) : o,
        ),
      );
      return { ...a, items } as T;
    }
    if (a.kind === t.info.kind && needsWebhook(t, a.apiVersion as string))
      return (await this.convert(t, a as unknown as KubeObject, t.apiVersion)) as T;
    return answer;
  }
}

/**
 * The object as the storage hands it to the converter: kube-apiserver sets the resourceVersion
 * from etcd's revision after decoding, so a webhook never sees one.
 */
function withoutResourceVersion(o: KubeObject): KubeObject {
  if (isObject(o.metadata)) delete o.metadata.resourceVersion;
  return o;
}

/** `o` with `from`'s resourceVersion, as the storage's versioner sets it after the conversion. */
function withResourceVersion(o: KubeObject, from: KubeObject): KubeObject {
  const rv = isObject(from.metadata) ? from.metadata.resourceVersion : undefined;
  if (isObject(o.metadata)) {
    if (rv === undefined) delete o.metadata.resourceVersion;
    else o.metadata.resourceVersion = rv;
  }
  return o;
}
