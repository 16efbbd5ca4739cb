/**
 * A real HTTPS admission webhook server for the tests: its own CA (the caBundle a configuration
 * names), one handler per path, and every AdmissionReview it was sent, in order.
 */
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import { generateServingCerts } from '../../../../src/cluster/auth/certs';

export type Handler = (
  request: Record<string, unknown>,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface WebhookServer {
  url: string;
  port: number;
  caBundle: string;
  received: Array<{ path: string; request: Record<string, unknown> }>;
  handle(path: string, h: Handler): void;
  close(): Promise<void>;
}

export async function startWebhookServer(dnsNames: string[] = []): Promise<WebhookServer> {
  const certs = await generateServingCerts(dnsNames);
  const handlers = new Map<string, Handler>();
  const received: WebhookServer['received'] = [];
  const server: Server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString()) as {
        request: Record<string, unknown>;
      };
      received.push({ path, request: review.request });
      const h = handlers.get(path);
      void Promise.resolve(h ? h(review.request) : { allowed: true }).then((response) => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, ...response },
          }),
        );
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(certs.caPem).toString('base64'),
    received,
    handle: (path, h) => handlers.set(path, h),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A JSON Patch as a webhook response carries it. */
export function patchResponse(ops: unknown[]): Record<string, unknown> {
  return {
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
  };
}
