/**
 * repeated-status-update: two status writes of the same object on one path through a function.
 * Each write bumps resourceVersion and fires a watch event; the second one usually conflicts or
 * triggers an extra reconcile. Collect the changes and write status once, at the end.
 *
 * The walk is path-sensitive in the cheap way: a branch that ends in `return` does not carry its
 * writes past the `if`, so the seed's "write status and return" early exit is not counted against
 * the final write, nor does a `case` that returns, a `goto`, a `continue` or a labelled `break`.
 * A Get into the object between two writes (a re-fetch) starts afresh. A loop body that goes
 * round is walked twice (a write in it is repeated on the next pass); deferred and goroutine
 * writes are ignored.
 *
 * A progress marker is not a repeat: a write that tells users the work is under way (Reconciling,
 * a Progressing condition), then the work, then a write of the same field with the outcome
 * (progress.ts). Users see the marker while the work runs; merging the two would lose it.
 */
import type { GoRule } from '../rule';
import { countable, StatusPasses, type WriteEvent } from '../passes';
import { progressMarkers, worksBeforeWriting } from '../progress';
import { callName, siteName } from '../summary';
import { argVar, callArgs, callee, statements } from '../syntax';

const MESSAGE =
  'Each write bumps resourceVersion and fires a watch event, so later ones conflict or trigger extra reconciles. Collect the changes and write status once.';

export const repeatedStatusUpdate: GoRule = {
  id: 'repeated-status-update',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        const events: WriteEvent[] = [];
        for (const cc of fn.clientCalls) {
          if (cc.status && cc.method !== 'Create') {
            const key = argVar(cc.args[1]) ?? cc.args[1]?.text ?? '';
            events.push({ call: cc.call, key, n: 1, refresh: false });
          } else if (!cc.status && cc.method === 'Get') {
            // A Get into the object re-reads it: the next write starts from fresh state.
            events.push({ call: cc.call, key: argVar(cc.args[2]) ?? '', n: 0, refresh: true });
          }
        }
        // Status helpers count as the writes they make when they make them on every pass (past
        // their error checks): `dfi.patchStatus(ctx, s)`. One that writes only under some
        // condition (when something changed, on a failure path) is not counted. A helper of
        // another package that itself writes twice is reported at the call (this package's own
        // are on the path, reported inside).
        const helpers = new Map<number, { name: string; twice: string | null }>();
        for (const call of fn.calls) {
          if (events.some((e) => e.call.id === call.id)) continue;
          const hit = ctx.summaries.ofCall(fn, call);
          const s = hit?.summary;
          if (!hit || !s?.write) continue;
          const local = hit.ref.path === ctx.summaries.homePath;
          const twice = !local && s.twice ? siteName(fn.file.path, s.twice) : null;
          const op = callee(call)?.operand;
          const i = s.writeParam;
          const v =
            i === null
              ? null
              : i === -1
                ? op?.type === 'identifier'
                  ? op.text
                  : null
                : argVar(callArgs(call)[i]);
          if (!twice && (!s.always || v === null)) continue;
          helpers.set(call.id, { name: callName(call), twice });
          events.push({ call, key: v ?? `?${call.id}`, n: twice ? s.perPass : 1, refresh: false });
        }
        // The walk hears only writes outside defers, goroutines and function literals: with
        // fewer than two of those (and none a helper that writes twice) it cannot report.
        const counted = events.filter((e) => !e.refresh && countable(e.call, fn.body));
        if (counted.length < 2 && !counted.some((e) => helpers.get(e.call.id)?.twice)) continue;
        const writes = events.filter((e) => !e.refresh).map((e) => e.call);
        const replaces = progressMarkers(fn.body, fn.calls, writes, (call) => {
          const ref = ctx.summaries.ofCall(fn, call)?.ref;
          const target = ref ? ctx.summaries.decl(ref) : null;
          return !!target && worksBeforeWriting(target.decl.node);
        });
        new StatusPasses(
          events,
          (w, before) => {
            const helper = helpers.get(w.call.id);
            if (helper?.twice && before === 0) {
              ctx.report({
                file: fn.file,
                node: w.call,
                message: `${helper.name} writes status twice in one pass (again at ${helper.twice}). ${MESSAGE}`,
              });
            } else if (before >= 1) {
              const what = helper
                ? `${helper.name} writes the status of ${w.key} again`
                : `Another status write of ${w.key}`;
              ctx.report({
                file: fn.file,
                node: w.call,
                message: `${what} on the same path. ${MESSAGE}`,
              });
            }
          },
          replaces,
        ).block(statements(fn.body), new Map());
      }
    }
  },
};
