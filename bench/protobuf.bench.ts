/**
 * Protobuf codec benchmark, printed as a ratio against a floor measured in the same run:
 *   - decode + encode of a typical Deployment (a kubebuilder memcached operator's, with status,
 *     managedFields and probes) through the generated API graph, vs JSON.parse + JSON.stringify of
 *     the same object's JSON text (what serving it as JSON costs).
 * Run: node --import tsx bench/protobuf.bench.ts
 */
import { decodeProtobufObject, encodeProtobufObject } from '../src/cluster/api/protobuf';

const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'memcached-sample',
    namespace: 'default',
    uid: '5b0f7c3e-8a8b-4f5f-9d63-0c1b2a3d4e5f',
    resourceVersion: '12345',
    generation: 3,
    creationTimestamp: '2026-01-02T03:04:05Z',
    labels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/managed-by': 'operator' },
    annotations: { 'deployment.kubernetes.io/revision': '2' },
    ownerReferences: [
      {
        apiVersion: 'cache.example.com/v1alpha1',
        kind: 'Memcached',
        name: 'memcached-sample',
        uid: '0a1b2c3d-0000-4000-8000-000000000001',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    managedFields: [
      {
        manager: 'manager',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2026-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': {} } } },
        },
      },
    ],
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { 'app.kubernetes.io/name': 'memcached' } },
    template: {
      metadata: { labels: { 'app.kubernetes.io/name': 'memcached' } },
      spec: {
        securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'memcached',
            image: 'memcached:1.6.26-alpine3.19',
            imagePullPolicy: 'IfNotPresent',
            command: ['memcached', '--memory-limit=64', '-o', 'modern', '-v'],
            ports: [{ name: 'memcached', containerPort: 11211, protocol: 'TCP' }],
            resources: {
              limits: { cpu: '500m', memory: '128Mi' },
              requests: { cpu: '100m', memory: '64Mi' },
            },
            livenessProbe: {
              tcpSocket: { port: 11211 },
              initialDelaySeconds: 5,
              periodSeconds: 10,
              timeoutSeconds: 1,
              successThreshold: 1,
              failureThreshold: 3,
            },
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 1001,
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
            },
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        schedulerName: 'default-scheduler',
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 3,
    replicas: 3,
    updatedReplicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: '2026-01-02T03:04:10Z',
        lastTransitionTime: '2026-01-02T03:04:10Z',
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
    ],
  },
};

/** µs per call: the best of several rounds, the two sides' rounds alternating (a shared machine). */
function perOp(fns: Array<() => void>, n: number, rounds = 7): number[] {
  const best = fns.map(() => Infinity);
  for (const fn of fns) for (let i = 0; i < 2000; i++) fn(); // warm
  for (let r = 0; r < rounds; r++)
    fns.forEach((fn, k) => {
      const t = performance.now();
      for (let i = 0; i < n; i++) fn();
      best[k] = Math.min(best[k], ((performance.now() - t) / n) * 1000);
    });
  return best;
}

const bytes = encodeProtobufObject(DEPLOYMENT);
const text = JSON.stringify(DEPLOYMENT);
let sink = 0;
const [ours, floor] = perOp(
  [
    () => (sink += encodeProtobufObject(decodeProtobufObject(bytes)).length),
    () => (sink += JSON.stringify(JSON.parse(text)).length),
  ],
  3000,
);
console.log(
  `${'protobuf decode+encode, Deployment'.padEnd(44)} ${`${ours.toFixed(1)} µs`.padStart(14)}  floor ${`${floor.toFixed(1)} µs`.padStart(14)}  ratio ${(ours / floor).toFixed(2)}x  (JSON.parse+stringify; ${bytes.length} B protobuf, ${text.length} B JSON)`,
);
if (sink === 0) console.log('');
