/**
 * The user's cluster, reached as kubectl would reach it: one context of the user's kubeconfig,
 * loaded by @kubernetes/client-node's KubeConfig, whose applyToHTTPSOptions brings the cluster's
 * CA (or insecure-skip-tls-verify), tls-server-name, client certificates, bearer tokens, token
 * files, exec plugins, impersonation and `proxy-url`. The file is only read, never written.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/** The kubeconfig kubectl would read: the first file of $KUBECONFIG, else ~/.kube/config. */
export function defaultKubeconfig(env: NodeJS.ProcessEnv = process.env): string {
  const first = (env.KUBECONFIG ?? '').split(delimiter).find((f) => f !== '');
  return first ?? join(homedir(), '.kube', 'config');
}

export interface ContextInfo {
  name: string;
  /** The server of the context's cluster ('' when the context names a cluster the file lacks). */
  server: string;
  current: boolean;
}

/** The contexts of a kubeconfig file, as a target picker offers them. */
export function listContexts(file: string): ContextInfo[] {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  const current = kc.getCurrentContext();
  return kc.getContexts().map((c) => ({
    name: c.name,
    server: kc.getCluster(c.cluster)?.server ?? '',
    current: c.name === current,
  }));
}

export interface UpstreamOptions {
  /** The user's kubeconfig file. */
  kubeconfig: string;
  /** The context to use, by name; the file's current-context when absent. */
  context?: string;
}

export interface Upstream {
  /** The context used. */
  readonly context: string;
  /** The context's namespace ('default' when it names none), for the proxy's kubeconfig. */
  readonly namespace: string;
  /** The cluster's server URL (`https://host:port[/prefix]`). */
  readonly server: URL;
  /**
   * Opens a request to the cluster with the user's credentials added to `headers` (which it
   * changes): at once with static credentials, once they are had with an exec plugin's or a token
   * file's.
   */
  request(
    method: string,
    target: string,
    headers: OutgoingHttpHeaders,
  ): ClientRequest | Promise<ClientRequest>;
  /** Closes the connections kept alive. */
  close(): void;
}

/** Loads the context; throws a message naming the file when it has no such context or cluster. */
export async function loadUpstream(opts: UpstreamOptions): Promise<Upstream> {
  const kc = new KubeConfig();
  kc.loadFromFile(opts.kubeconfig);
  if (opts.context !== undefined) {
    if (!kc.getContextObject(opts.context))
      throw new Error(`${opts.kubeconfig} has no context "${opts.context}"`);
    kc.setCurrentContext(opts.context);
  }
  const context = kc.getCurrentContext();
  const cluster = kc.getCurrentCluster();
  if (!context || !cluster)
    throw new Error(`${opts.kubeconfig}: context "${context}" names no cluster`);
  const server = new URL(cluster.server);
  const user = kc.getCurrentUser();
  const base: RequestOptions = {};
  await kc.applyToHTTPSOptions(base);
  // One agent whose connections are kept alive: a TLS handshake per request would cost more
  // than the whole proxy. Through a `proxy-url` the client's own agent is kept as it is.
  const agent = cluster.proxyUrl
    ? base.agent
    : server.protocol === 'http:'
      ? new HttpAgent({ keepAlive: true })
      : new HttpsAgent({
          keepAlive: true,
          ca: base.ca,
          cert: base.cert,
          key: base.key,
          rejectUnauthorized: base.rejectUnauthorized,
          servername: base.servername,
        });
  // Exec plugins and token files give credentials that expire: asked for on every request (the
  // authenticators cache them until then); static ones are read once. Per request only the
  // authenticator is asked (client-node's applyAuthorizationHeader), not applyToHTTPSOptions,
  // which would read the CA and certificate files again and build an agent each time.
  const dynamic = user?.exec !== undefined || user?.authProvider !== undefined;
  const credentialsOf = (o: RequestOptions): OutgoingHttpHeaders => {
    const h: OutgoingHttpHeaders = { ...(o.headers as OutgoingHttpHeaders | undefined) };
    if (o.auth) h.authorization = `Basic ${Buffer.from(o.auth).toString('base64')}`;
    return h;
  };
  const fixed = credentialsOf(base);
  const authorize = (kc as unknown as { applyAuthorizationHeader?: unknown })
    .applyAuthorizationHeader;
  const dynamicCredentials = async (): Promise<OutgoingHttpHeaders> => {
    const o: RequestOptions = {};
    if (typeof authorize === 'function') {
      await (authorize as (o: RequestOptions) => Promise<void>).call(kc, o);
      return { ...fixed, ...credentialsOf(o) };
    }
    await kc.applyToHTTPSOptions(o);
    return credentialsOf(o);
  };
  const prefix = server.pathname.replace(/\/+$/, '');
  const send = server.protocol === 'http:' ? httpRequest : httpsRequest;
  const hostname = server.hostname.replace(/^\[|\]$/g, '');
  const port = server.port || (server.protocol === 'http:' ? 80 : 443);
  const namespace = kc.getContextObject(context)?.namespace || 'default';
  return {
    context,
    namespace,
    server,
    request: (method, target, headers) => {
      const open = (creds: OutgoingHttpHeaders) => {
        // Added in place: an object spread followed by more properties costs V8 a slow map
        // transition per property, per request.
        for (const k in creds) headers[k] = creds[k];
        return send({
          protocol: server.protocol,
          hostname,
          port,
          method,
          path: prefix + target,
          headers,
          agent,
        });
      };
      return dynamic ? dynamicCredentials().then(open) : open(fixed);
    },
    close: () => {
      if (agent instanceof HttpAgent) agent.destroy();
    },
  };
}
