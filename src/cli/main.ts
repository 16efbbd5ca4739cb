/**
 * `reconcile-studio serve | proxy | simulate | test | lint`: a thin shell over the three cores. Each subcommand
 * lives in its own module and is loaded only when asked for, so `lint` never pays for the cluster.
 */
import { VERSION } from '../util/version';

type Subcommand = (argv: string[]) => Promise<number>;

const SUBCOMMANDS: Record<string, { summary: string; load: () => Promise<Subcommand> }> = {
  serve: {
    summary: 'serve the fake cluster over HTTPS and write a kubeconfig for it',
    load: async () => (await import('./serve')).run,
  },
  proxy: {
    summary:
      'record what a client does on a real cluster: a recording proxy to a kubeconfig context',
    load: async () => (await import('./proxy')).run,
  },
  simulate: {
    summary: 'run a reconciler against a fresh fake cluster on the virtual clock',
    load: async () => (await import('./simulate')).run,
  },
  chaos: {
    summary: 'the robustness report: a reconciler under each fault class against its baseline',
    load: async () => (await import('./chaos')).run,
  },
  test: {
    summary: 'run a command (an envtest suite) against a fresh fake cluster',
    load: async () => (await import('./test')).run,
  },
  lint: {
    summary: 'report reconcile anti-patterns in Go and TypeScript files',
    load: async () => (await import('./lint')).run,
  },
};

export function usage(): string {
  const lines = Object.entries(SUBCOMMANDS).map(([n, s]) => `  ${n.padEnd(10)}${s.summary}`);
  return [
    'Usage: reconcile-studio <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'reconcile-studio <command> --help' for a command's options.",
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    console.log(usage());
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === 'version') {
    console.log(VERSION);
    return 0;
  }
  const sub = SUBCOMMANDS[cmd];
  if (!sub) {
    console.error(`reconcile-studio: unknown command "${cmd}"\n\n${usage()}`);
    return 2;
  }
  const run = await sub.load();
  return run(rest);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      // An internal error, not a finding: 2, as for usage errors (1 means "findings" to lint).
      console.error(`reconcile-studio: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 2;
    },
  );
}
