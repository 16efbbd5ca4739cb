/**
 * batch/v1 Job's and CronJob's registry strategies, as pkg/registry/batch: a Job's create gets a
 * generated selector (the controller-uid label, unique to this Job) and its template the job-name
 * and controller-uid labels, so the Job controller finds exactly its own pods; defaults as
 * SetDefaults_Job / SetDefaults_CronJob; the template's restartPolicy validated as
 * ValidateJobSpec does (a Job's pods run to completion: OnFailure or Never), a CronJob's schedule
 * and timeZone as validateCronJobSpec does (the cron parser's own messages).
 */
import type { FieldError } from '../apimachinery/errors';
import { RawValue, fieldInvalid, fieldNotSupported, fieldRequired } from '../apimachinery/errors';
import { marshalInternalPodSpec } from '../api/internaljson';
import { clone } from '../apimachinery/clone';
import { deepEqual, isObject } from '../apimachinery/patch';
import { fromLabelSelector, matchesLabels } from '../apimachinery/selector';
import type { KubeObject } from '../apimachinery/types';
import { isKnownTimeZone, parseCronSchedule } from '../../util/cron';
import { rec, ensure } from '../apimachinery/unstructured';

type Obj = Record<string, unknown>;

export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
const LEGACY_JOB_NAME_LABEL = 'job-name';

/**
 * jobStrategy.PrepareForCreate: status starts empty and, unless spec.manualSelector, the selector
 * is generated (generateSelector). A Job without labels takes its template's (SetDefaults_Job),
 * the generated ones included: a 1.36 apiserver answers so (SetDefaults_Job shares the template's
 * label map, which generateSelector then fills).
 */
export function prepareJobForCreate(obj: KubeObject): void {
  const spec = ensure(obj as Obj, 'spec');
  const tmplMd = ensure(ensure(spec, 'template'), 'metadata');
  obj.status = {};
  if (spec.manualSelector !== true) generateSelector(obj, spec, tmplMd);
  // Defaulting gave the Job its template's label map itself, or (when the template had none
  // then) the apiserver's next decode does: either way the Job's labels are the template's.
  if (
    isObject(tmplMd.labels) &&
    (obj.metadata.labels === tmplMd.labels || !Object.keys(obj.metadata.labels ?? {}).length)
  )
    obj.metadata.labels = { ...(tmplMd.labels as Record<string, string>) };
}

function generateSelector(obj: KubeObject, spec: Obj, tmplMd: Obj): void {
  const labels = ensure(tmplMd, 'labels') as Record<string, string>;
  const name = obj.metadata.name ?? '';
  const uid = obj.metadata.uid ?? '';
  // Labels the user set are kept; a conflict is validation's to refuse.
  for (const k of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[k] ??= name;
  for (const k of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[k] ??= uid;
  const matchLabels = ensure(ensure(spec, 'selector'), 'matchLabels') as Record<string, string>;
  matchLabels[CONTROLLER_UID_LABEL] ??= uid;
}

/** The part of ValidateJobSpec a Job's pods depend on: a restartPolicy that lets them finish. */
export function validateJobTemplate(spec: Obj, path: string): FieldError[] {
  const policy = rec(rec(spec.template).spec).restartPolicy;
  const field = `${path}.template.spec.restartPolicy`;
  if (policy === 'Always' || policy === undefined || policy === '')
    return [fieldRequired(field, 'valid values: "OnFailure", "Never"')];
  if (policy !== 'OnFailure' && policy !== 'Never')
    return [fieldNotSupported(field, policy, ['OnFailure', 'Never'])];
  if (spec.podFailurePolicy && policy !== 'Never')
    return [
      fieldInvalid(field, policy, 'only "Never" is supported when podFailurePolicy is specified'),
    ];
  return [];
}

/**
 * A CronJob's job template and its pod template hold ObjectMeta by value, not by pointer: an
 * absent one comes back as {}.
 */
export function cronJobTemplateMetadata(obj: KubeObject): void {
  const jobTemplate = ensure(ensure(obj as Obj, 'spec'), 'jobTemplate');
  ensure(jobTemplate, 'metadata');
  ensure(ensure(ensure(jobTemplate, 'spec'), 'template'), 'metadata');
}

/** validateCronJobSpec's schedule, startingDeadlineSeconds and timeZone checks. */
export function validateCronJob(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = rec(obj.spec);
  const oldSpec = old ? rec(old.spec) : undefined;
  const errs: FieldError[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  const tz = spec.timeZone;
  if (!schedule) errs.push(fieldRequired('spec.schedule'));
  else {
    try {
      parseCronSchedule(schedule);
    } catch (err) {
      errs.push(fieldInvalid('spec.schedule', schedule, (err as Error).message));
    }
    const allowTz = typeof oldSpec?.schedule === 'string' && oldSpec.schedule.includes('TZ');
    if (allowTz && schedule.includes('TZ') && tz != null)
      errs.push(
        fieldInvalid(
          'spec.schedule',
          schedule,
          'cannot use both timeZone field and TZ or CRON_TZ in schedule',
        ),
      );
    else if (!allowTz && schedule.includes('TZ'))
      errs.push(
        fieldInvalid(
          'spec.schedule',
          schedule,
          'cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
        ),
      );
  }
  if (typeof spec.startingDeadlineSeconds === 'number' && spec.startingDeadlineSeconds < 0)
    errs.push(
      fieldInvalid(
        'spec.startingDeadlineSeconds',
        spec.startingDeadlineSeconds,
        'must be greater than or equal to 0',
      ),
    );
  if (tz != null && (!oldSpec || oldSpec.timeZone !== tz)) errs.push(...validateTimeZone(tz));
  return errs;
}

/** validateTimeZone. */
function validateTimeZone(tz: unknown): FieldError[] {
  const f = 'spec.timeZone';
  if (tz === '') return [fieldInvalid(f, tz, 'timeZone must be nil or non-empty string')];
  const name = String(tz);
  for (const part of name.split('/'))
    if (
      part === '.' ||
      part === '..' ||
      part.startsWith('-') ||
      !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part)
    )
      return [fieldInvalid(f, tz, `unknown time zone ${name}`)];
  if (name.toLowerCase() === 'local')
    return [
      fieldInvalid(
        f,
        tz,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    ];
  return isKnownTimeZone(name) ? [] : [fieldInvalid(f, tz, `unknown time zone ${name}`)];
}

/**
 * ValidateJobSpec's selector checks: a Job has one (generated at create unless manualSelector),
 * and it selects its template's labels. A nil selector (LabelSelectorAsSelector's Nothing)
 * selects no labels at all.
 */
export function validateJobSelector(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const selector = spec.selector;
  if (selector === undefined || selector === null) errs.push(fieldRequired(`${path}.selector`));
  const labels = rec(rec(spec.template).metadata).labels;
  const selects =
    isObject(selector) &&
    matchesLabels(fromLabelSelector(selector) ?? [], labels as Record<string, string>);
  if (!selects)
    errs.push(
      fieldInvalid(
        `${path}.template.metadata.labels`,
        labels ?? null,
        '`selector` does not match template `labels`',
      ),
    );
  return errs;
}

/** The fields ValidateJobSpecUpdate keeps as they were created. */
const IMMUTABLE_JOB_FIELDS = [
  'selector',
  'completionMode',
  'podFailurePolicy',
  'backoffLimitPerIndex',
  'managedBy',
  'successPolicy',
] as const;

/**
 * ValidateJobSpecUpdate's own checks (the spec's are ValidateJobSpec's): completions are fixed
 * unless the Job is Indexed (then they move with parallelism), the selector and the policy fields
 * are immutable, and the template is too — but for a suspended Job's container resources
 * (validatePodResourceUpdatesOnly, MutablePodResourcesForSuspendedJobs).
 */
export function validateJobSpecUpdate(spec: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const immutable = (field: string, now: unknown, was: unknown): void => {
    if (!deepEqual(now ?? null, was ?? null))
      errs.push(fieldInvalid(`spec.${field}`, now ?? null, 'field is immutable'));
  };
  if (spec.completionMode !== 'Indexed')
    immutable('completions', spec.completions, old.completions);
  else if (
    !deepEqual(spec.completions, old.completions) &&
    spec.completions != null &&
    spec.completions !== spec.parallelism
  )
    errs.push(
      fieldInvalid(
        'spec.completions',
        spec.completions,
        'can only be modified in tandem with spec.parallelism',
      ),
    );
  immutable('selector', spec.selector, old.selector);
  const template = rec(spec.template);
  const was = rec(old.template);
  if (old.suspend !== true) immutable('template', template, was);
  else {
    // Only the containers' resources may change: compare with them put back as they were.
    const podSpec = rec(template.spec);
    const oldSpec = clone(rec(was.spec));
    const now = Array.isArray(podSpec.containers) ? podSpec.containers : [];
    const before = Array.isArray(oldSpec.containers) ? (oldSpec.containers as Obj[]) : [];
    if (now.length === before.length)
      before.forEach((c, i) => {
        if (c.name === rec(now[i]).name) c.resources = rec(now[i]).resources;
      });
    // The pod spec alone: a suspended Job's template metadata is not compared.
    if (!deepEqual(podSpec, oldSpec))
      // field.Invalid of the internal PodSpec: json.Marshal of it (Go names, internal layout).
      errs.push(
        fieldInvalid(
          'spec.template.spec',
          new RawValue(marshalInternalPodSpec(podSpec)),
          'field is immutable',
        ),
      );
  }
  for (const f of IMMUTABLE_JOB_FIELDS.slice(1)) immutable(f, spec[f], old[f]);
  return errs;
}
