/**
 * The kubeconfig the operator's process is given: the proxy's URL, CA and a token of the
 * process's own, in a file of its own — never the user's kubeconfig, which the proxy only reads
 * (the user's credentials stay in the proxy; the process never sees them).
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeKubeconfigFile } from '../cluster/auth/kubeconfig';

const real = (f: string) => (existsSync(f) ? realpathSync(f) : resolve(f));

/** Writes `text` to `file`, 0600, refusing to write over the user's kubeconfig `userFile`. */
export function writeProxyKubeconfig(file: string, text: string, userFile: string): void {
  if (real(file) === real(userFile))
    throw new Error(`refusing to write the proxy's kubeconfig over the user's ${userFile}`);
  writeKubeconfigFile(file, text);
}
