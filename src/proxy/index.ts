/** The recording proxy to a real cluster: see server.ts. */
export {
  startProxy,
  PROXY_USER,
  type ProxyHandle,
  type ProxyOptions,
  type ProxiedWatchEvent,
} from './server';
export {
  defaultKubeconfig,
  listContexts,
  loadUpstream,
  type ContextInfo,
  type Upstream,
  type UpstreamOptions,
} from './upstream';
export { writeProxyKubeconfig } from './kubeconfig';
