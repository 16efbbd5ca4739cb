/**
 * What a `go run -v` prints while it builds: the import path of each package as it is compiled,
 * one a line, before the program's own output starts. This follows those lines so the editor can
 * show a build in progress (how many packages, the last one, how long) instead of a silent wait
 * that looks like a hang; the build is over at the first line that is not a package path.
 */

/** An import path as `go build -v` prints it: `sigs.k8s.io/controller-runtime/pkg/client`, `main`. */
const PACKAGE_LINE = /^(?:[A-Za-z0-9_.~-]+)(?:\/[A-Za-z0-9_.~+-]+)*$/;

export interface BuildState {
  /** Packages compiled so far. */
  packages: number;
  /** The package compiled last. */
  last: string | undefined;
  /** The build is over: the program printed something of its own (or exited). */
  done: boolean;
}

export class BuildProgress {
  private state: BuildState = { packages: 0, last: undefined, done: false };

  /** Takes one output line; answers whether it was part of the build's progress. */
  feed(line: string): boolean {
    if (this.state.done) return false;
    const text = line.trim();
    // Go's own notes while it fetches modules are progress too ("go: downloading x v1").
    if (text.startsWith('go: downloading ')) return true;
    if (text && PACKAGE_LINE.test(text) && !text.startsWith('{')) {
      this.state = { packages: this.state.packages + 1, last: text, done: false };
      return true;
    }
    if (text) this.state = { ...this.state, done: true };
    return false;
  }

  finish(): void {
    this.state = { ...this.state, done: true };
  }

  get current(): BuildState {
    return this.state;
  }
}

/** "Building: 57 packages, 0:42 — sigs.k8s.io/controller-runtime/pkg/client". */
export function describeBuild(state: BuildState, elapsedMs: number): string {
  return `Building: ${packages(state.packages)}, ${elapsedClock(elapsedMs)}${state.last ? ` — ${state.last}` : ''}`;
}

/**
 * "Starting under Delve: 0:47 (57 packages built)": the debug build is done and Delve is loading
 * the binary and running it to the first stop (seconds, for a manager of a few hundred packages).
 */
export function describeDelveStart(state: BuildState, elapsedMs: number): string {
  const built = state.packages ? ` (${packages(state.packages)} built)` : '';
  return `Starting under Delve: ${elapsedClock(elapsedMs)}${built}`;
}

function packages(n: number): string {
  return n === 1 ? '1 package' : `${n} packages`;
}

/** Minutes and seconds, `m:ss`. */
function elapsedClock(elapsedMs: number): string {
  const s = Math.floor(elapsedMs / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
