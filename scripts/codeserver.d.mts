import type { ChildProcess } from 'node:child_process';

export const CODE_SERVER_VERSION: string;
export function cacheDir(): string;
export function codeServerBin(): string;
export function ensureCodeServer(): string;
export function installExtension(bin: string, extensionsDir: string, vsix: string): void;
export function freePort(): Promise<number>;
export function makeProfile(userDataDir: string, settings?: Record<string, unknown>): void;
export interface RunningCodeServer {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
  output(): string;
}
export function startCodeServer(opts: {
  bin: string;
  port: number;
  workspace: string;
  userDataDir: string;
  extensionsDir: string;
  env?: Record<string, string>;
  trust?: boolean;
  stdio?: 'pipe' | 'inherit';
}): Promise<RunningCodeServer>;
