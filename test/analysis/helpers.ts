/** Shared helpers for analysis tests: one Analyzer per process and a controller template. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Analyzer } from '../../src/analysis/analyzer';
import type { Finding } from '../../src/analysis/diagnostics';

let shared: Promise<Analyzer> | undefined;
export function analyzer(): Promise<Analyzer> {
  shared ??= Analyzer.create();
  return shared;
}

export const FIXTURES = join(__dirname, 'fixtures');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** A kubebuilder-style file whose Reconcile body is `body`; `extra` adds package-level code. */
export function controller(
  body: string,
  extra = '',
  opts: { observedGeneration?: boolean } = {},
): string {
  const og =
    opts.observedGeneration === false ? '' : '\tapp.Status.ObservedGeneration = app.Generation\n';
  return `package controller

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webv1 "example.com/web/api/v1"
)

type WebAppReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

type WebApp struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec   WebAppSpec
	Status WebAppStatus
}

type WebAppSpec struct {
	Replicas int32
}

type WebAppStatus struct {
	Phase              string
	ObservedGeneration int64
}

func (r *WebAppReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app webv1.WebApp
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
${og}${body
    .split('\n')
    .map((l) => (l ? `\t${l}` : l))
    .join('\n')}
	return ctrl.Result{}, nil
}
${extra}
`;
}

export async function findings(text: string, path = 'controller.go'): Promise<Finding[]> {
  return (await analyzer()).analyzeFile(path, text);
}

export async function rulesOf(text: string, path = 'controller.go'): Promise<string[]> {
  return (await findings(text, path)).map((f) => f.rule);
}

/** Applies a fix's edits to `text` (edits in one fix never overlap). */
export function applyEdits(
  text: string,
  edits: {
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    newText: string;
  }[],
): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }): number =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const e of sorted)
    out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}
