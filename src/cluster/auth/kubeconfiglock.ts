/**
 * The lock client-go's clientcmd takes while it modifies a kubeconfig (loader.go lockFile /
 * unlockFile, around ModifyConfig's read-modify-write): `FILE.lock`, created exclusively next to
 * the file, removed when done. `kubectl config set-context` and `serve --kubeconfig` so never
 * interleave their writes. As clientcmd, there is no retry and no stale-lock detection: a lock
 * that is there makes the modification fail, naming the lock file.
 */
import { closeSync, constants, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/** clientcmd's lockName: the lock of a kubeconfig, named after the path as given (not resolved). */
export function kubeconfigLockName(file: string): string {
  return `${file}.lock`;
}

/** Runs `modify` holding the lock of the kubeconfig `file`; the lock goes whatever `modify` does. */
export function withKubeconfigLock<T>(file: string, modify: () => T): T {
  const lock = kubeconfigLockName(file);
  mkdirSync(dirname(lock), { recursive: true, mode: 0o755 });
  let fd: number;
  try {
    // os.OpenFile(lockName(filename), os.O_CREATE|os.O_EXCL, 0)
    fd = openSync(lock, constants.O_CREAT | constants.O_EXCL | constants.O_RDONLY, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Go's error text, as kubectl prints it, then what to do about it.
    throw new Error(
      `open ${lock}: file exists (another program, such as kubectl config, is changing ${file}; if none is, the lock is stale: remove ${lock})`,
    );
  }
  closeSync(fd);
  try {
    return modify();
  } finally {
    rmSync(lock, { force: true });
  }
}
