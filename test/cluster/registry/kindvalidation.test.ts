/**
 * The validation of kinds whose empty objects kube-apiserver refuses: each message is the one a
 * real kube-apiserver 1.36.3 answered to the same body in the differential suite
 * (`npm run test:differential`, the matrix's field-validation scenario), except the
 * ClusterRoleBinding's, which the suite does not send: that one is read from
 * ValidateClusterRoleBinding in pkg/apis/rbac/validation.
 */
import { test } from 'node:test';
import type { KubeObject } from '../../../src/cluster/apimachinery/types';
import { expectInvalid } from '../helpers';

const refused = expectInvalid;

function bare(apiVersion: string, kind: string, namespaced = false): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name: 'x', ...(namespaced ? { namespace: 'default' } : {}) },
  };
}

test('an empty RoleBinding names no role, as ValidateRoleBinding says', () =>
  refused(
    bare('rbac.authorization.k8s.io/v1', 'RoleBinding', true),
    'RoleBinding.rbac.authorization.k8s.io "x" is invalid: [roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole", roleRef.name: Required value]',
  ));

test('a ClusterRoleBinding may bind a ClusterRole only', () =>
  refused(
    {
      ...bare('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
    },
    'ClusterRoleBinding.rbac.authorization.k8s.io "x" is invalid: [roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole", subjects[0].namespace: Required value]',
  ));

test('a RuntimeClass needs a handler, a StorageClass a provisioner', () => {
  refused(
    bare('node.k8s.io/v1', 'RuntimeClass'),
    'RuntimeClass.node.k8s.io "x" is invalid: handler: Required value',
  );
  refused(
    bare('storage.k8s.io/v1', 'StorageClass'),
    'StorageClass.storage.k8s.io "x" is invalid: provisioner: Required value',
  );
});

test('a ControllerRevision needs its data, a FlowSchema its priority level', () => {
  refused(
    bare('apps/v1', 'ControllerRevision', true),
    'ControllerRevision.apps "x" is invalid: data: Required value: data is mandatory',
  );
  refused(
    bare('flowcontrol.apiserver.k8s.io/v1', 'FlowSchema'),
    'FlowSchema.flowcontrol.apiserver.k8s.io "x" is invalid: spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
  );
});

test('a workload without a selector: no template matches it, and a DaemonSet does not require one', () => {
  refused(
    { ...bare('apps/v1', 'Deployment', true), spec: {} },
    'Deployment.apps "x" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.template.spec.containers: Required value]',
  );
  refused(
    { ...bare('apps/v1', 'DaemonSet', true), spec: {} },
    'DaemonSet.apps "x" is invalid: [spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.template.spec.containers: Required value]',
  );
});

test('a claim needs access modes and a storage request, a ReplicationController a selector and a template', () => {
  refused(
    bare('v1', 'PersistentVolumeClaim', true),
    'PersistentVolumeClaim "x" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
  );
  refused(
    bare('v1', 'ReplicationController', true),
    'ReplicationController "x" is invalid: [spec.selector: Required value, spec.template: Required value]',
  );
});
