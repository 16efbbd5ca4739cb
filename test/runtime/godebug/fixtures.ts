/** The first reconcile of default/blog as the Go debugger reads it, up to the Deployment create. */
import type { GoPhase } from '../../../src/runtime/godebug/phases';

export const req = { namespace: 'default', name: 'blog' };
export const phases: GoPhase[] = [
  { phase: 'dequeue', summary: 'dequeue default/blog', request: req },
  { phase: 'reconcile', summary: 'reconcile default/blog', request: req },
  {
    phase: 'read',
    summary: 'read get Deployment default/blog (cache) → 404 NotFound',
    call: {
      verb: 'get',
      kind: 'Deployment',
      ...req,
      subresource: '',
      source: 'cache',
      code: 404,
      reason: 'NotFound',
    },
  },
  {
    phase: 'write',
    summary: 'write create Deployment default/blog (server) → 201',
    call: {
      verb: 'create',
      kind: 'Deployment',
      ...req,
      subresource: '',
      source: 'server',
      code: 201,
      after: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'blog', namespace: 'default' },
      },
    },
  },
];
