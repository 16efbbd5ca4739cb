/** Types of controlplane.mjs for the TypeScript that imports it (the differential suite). */
export interface ControlPlane {
  server: string;
  token: string;
  kubeconfig: string;
  pids: number[];
  stop(): Promise<void>;
}
export declare function freePort(): Promise<number>;
export declare function startControlPlane(options: {
  binDir: string;
  dir: string;
  controllers?: boolean;
  readyTimeoutMs?: number;
  /** More kube-apiserver flags (e.g. --audit-log-path and --audit-policy-file). */
  apiserverArgs?: string[];
}): Promise<ControlPlane>;
export declare function servingCertificate(dir: string): string;
