/**
 * One runtime reconciles the editor's cluster at a time: a TypeScript reconciler, the Go operator
 * Run Go Operator started, and a Go operator under Delve would each reconcile the same objects,
 * racing each other's writes, and the Work Queue and findings would mix their work. Starting one
 * while another runs is a choice the user makes: this says what would be stopped, and how.
 */
export type Runtime = 'typescript' | 'go' | 'go-debug';

export interface RunningRuntimes {
  /** The TypeScript reconciler's module (workspace-relative), when one runs. */
  typescript?: string;
  go: boolean;
  goDebug: boolean;
}

export interface RuntimeConflict {
  /** The runtimes to stop before `starting` runs. */
  stop: Runtime[];
  message: string;
  /** The button that stops them and goes on. */
  action: string;
}

const NAMES: Record<Runtime, (r: RunningRuntimes) => string> = {
  typescript: (r) => `The TypeScript reconciler ${r.typescript ?? ''}`.trimEnd(),
  go: () => 'The Go operator',
  'go-debug': () => 'The Go operator under the debugger',
};

/** What starting `starting` would run beside, or undefined when nothing else runs. */
export function runtimeConflict(
  starting: Runtime,
  running: RunningRuntimes,
): RuntimeConflict | undefined {
  const others = (
    [
      ['typescript', running.typescript !== undefined],
      ['go', running.go],
      ['go-debug', running.goDebug],
    ] as Array<[Runtime, boolean]>
  )
    .filter(([r, on]) => on && r !== starting)
    .map(([r]) => r);
  if (others.length === 0) return undefined;
  const who = others.map((r, i) => {
    const name = NAMES[r](running);
    return i === 0 ? name : name.replace(/^The /, 'the ');
  });
  const subject = who.length === 1 ? `${who[0]} is` : `${who.join(' and ')} are`;
  return {
    stop: others,
    message: `${subject} running on the cluster. Two runtimes would reconcile the same objects at once.`,
    action: starting === 'go-debug' ? 'Stop It and Debug' : 'Stop It and Run',
  };
}
