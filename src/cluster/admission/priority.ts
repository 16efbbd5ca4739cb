/**
 * The Priority admission plugin (plugin/pkg/admission/priority): a pod created gets the priority
 * of its PriorityClass, or of the global default class, or 0 with PreemptLowerPriority when there
 * is none; a class that does not exist, or a priority or preemption policy the pod sets that
 * differs from the class's, is refused (403). An update keeps what the create set. Subresources
 * are not its business. (Its PodGroup half, behind the WorkloadAwarePreemption gate, is not
 * modelled.)
 */
import type { MutatingAdmissionPlugin } from './admission';
import type { ControllerHost } from '../controllers/controllerhost';
import { newForbidden } from '../apimachinery/errors';
import { isObject } from '../apimachinery/patch';
import type { KubeObject } from '../apimachinery/types';

const PC = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' };
/** scheduling.DefaultPriorityWhenNoDefaultClassExists. */
const NO_DEFAULT_PRIORITY = 0;
const PREEMPT_LOWER_PRIORITY = 'PreemptLowerPriority';

interface Established {
  className: string;
  priority: number;
  preemptionPolicy: string | undefined;
}

/** getDefaultPriorityClass: of several global defaults (a race), the lowest value. */
function defaultClass(host: Pick<ControllerHost, 'scan'>): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const pc of host.scan(PC))
    if (pc.globalDefault === true && (!best || Number(best.value) > Number(pc.value))) best = pc;
  return best;
}

export function priorityAdmission(
  host: Pick<ControllerHost, 'scan' | 'peek'>,
): MutatingAdmissionPlugin {
  /** establishPriority; undefined when the named class does not exist. */
  const establish = (className: string): Established | undefined => {
    const pc = className ? host.peek(PC, { name: className }) : defaultClass(host);
    if (className && !pc) return undefined;
    if (!pc)
      return {
        className: '',
        priority: NO_DEFAULT_PRIORITY,
        preemptionPolicy: PREEMPT_LOWER_PRIORITY,
      };
    return {
      className: pc.metadata.name!,
      priority: Number(pc.value ?? 0),
      preemptionPolicy: typeof pc.preemptionPolicy === 'string' ? pc.preemptionPolicy : undefined,
    };
  };
  return (a) => {
    if (a.subresource || a.type.info.group !== '' || a.type.info.plural !== 'pods') return;
    if (!isObject(a.object.spec)) a.object.spec = {};
    const spec = a.object.spec as Record<string, unknown>;
    if (a.operation === 'UPDATE') {
      // This admission plugin set priority on create; an update keeps it.
      const old = isObject(a.old?.spec) ? a.old.spec : {};
      if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined)
        spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    if (a.operation !== 'CREATE') return;
    const asked = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
    const forbidden = (why: string) => newForbidden(a.type.gr, a.name ?? '', why);
    const found = establish(asked);
    if (!found) throw forbidden(`no PriorityClass with name ${asked} was found`);
    if (found.className) spec.priorityClassName = found.className;
    if (typeof spec.priority === 'number' && spec.priority !== found.priority)
      throw forbidden(
        `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${found.priority} from the given PriorityClass name`,
      );
    spec.priority = found.priority;
    if (found.preemptionPolicy !== undefined) {
      if (
        typeof spec.preemptionPolicy === 'string' &&
        spec.preemptionPolicy !== found.preemptionPolicy
      )
        throw forbidden(
          `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${found.preemptionPolicy} from the given PriorityClass name`,
        );
      spec.preemptionPolicy = found.preemptionPolicy;
    }
  };
}
