/**
 * FlowSchema validation (pkg/apis/flowcontrol/validation, ValidateFlowSchemaSpec): the matching
 * precedence and the priority level the schema sends its requests to. Not yet its rules and
 * subjects, nor a PriorityLevelConfiguration's spec. ObjectMeta is validated elsewhere.
 */
import { fieldInvalid, fieldRequired, type FieldError } from '../apimachinery/errors';
import { validateName } from '../apimachinery/names';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

/** flowcontrol.FlowSchemaMaxMatchingPrecedence */
const MAX_MATCHING_PRECEDENCE = 10000;

export function validateFlowSchema(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObject(obj.spec) ? obj.spec : {};
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0)
    errs.push(fieldInvalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > MAX_MATCHING_PRECEDENCE)
    errs.push(
      fieldInvalid(
        'spec.matchingPrecedence',
        precedence,
        `must not be greater than ${MAX_MATCHING_PRECEDENCE}`,
      ),
    );
  if (precedence === 1 && obj.metadata.name !== 'exempt')
    errs.push(
      fieldInvalid(
        'spec.matchingPrecedence',
        precedence,
        "only the schema named 'exempt' may have matchingPrecedence 1",
      ),
    );
  const pl = isObject(spec.priorityLevelConfiguration) ? spec.priorityLevelConfiguration : {};
  const name = typeof pl.name === 'string' ? pl.name : '';
  const at = 'spec.priorityLevelConfiguration.name';
  if (!name) errs.push(fieldRequired(at, 'must reference a priority level'));
  else for (const m of validateName(name, 'subdomain')) errs.push(fieldInvalid(at, name, m));
  return errs;
}
