/**
 * Everything heavy the editor uses, behind one door: the fake cluster, its HTTPS server, the
 * runtime and the simulator. Bundled as dist/engine.js and loaded on first use (starting the
 * cluster, running a reconciler), so that activating the extension costs milliseconds.
 */
export { writeKubeconfigFile } from '../cluster/auth/kubeconfig';
export { Cluster } from '../cluster/cluster';
export { createCluster } from '../cluster/builtins';
export { loadManifests } from '../cluster/manifests';
export { startServer } from '../cluster/endpoints/server';
export { persist, restoreState, walFileOf } from '../cluster/storage/state';
export { FaultInjector, FaultsFileError, parseFaults } from '../cluster/faults';
export { FaultyApiServer } from '../runtime/faultyapiserver';
export { WebhookApiServer } from '../runtime/webhookapiserver';
export { loadReconciler } from '../runtime/loader';
export { Manager } from '../runtime/manager';
export { KEPT_TRACES } from '../runtime/trace';
export { simulate } from '../runtime/simulation';
export { formatReport } from '../cli/simulate';
export {
  DebuggerModel,
  NO_EVENTS,
  eventsOf,
  firstTraceOf,
  shownFindings,
  toFindingView,
} from './model/debuggermodel';
export { GoManagerProcess, commandLine, freePort } from '../runtime/goprocess';
export { BuildProgress, describeBuild, describeDelveStart } from '../runtime/buildprogress';
export { goBuild } from '../runtime/gotoolchain';
export { warmBuildCache } from '../runtime/gowarmup';
export { ObservedManager } from '../runtime/observedcontroller';
export { analyze } from '../runtime/findings';
export { clusterFindingsSource, observedFindings } from '../runtime/observedfindings';
export { RemoteFindingsSource } from '../runtime/remotefindings';
export { managerFlags } from '../runtime/goprocess';
export { DELVE_GCFLAGS, DELVE_INSTALL, DELVE_MISSING, findDelve } from '../runtime/godebug/delve';
export { PhaseReader } from '../runtime/godebug/stops';
export { delveGoProblem } from '../runtime/godebug/goversion';
export { controllerRuntimeOf, resolvePhaseSymbols } from '../runtime/godebug/symbols';
export { findReconcileSymbols } from '../runtime/godebug/reconcilers';
export { DapClient, startDelve } from '../runtime/godebug/dap';
export { runChaosInThread, runGoChaosInThread, ChaosCancelled } from '../runtime/chaosthread';
export { robustnessView } from './model/robustnessreport';
export { RecordedRunModel } from './model/recordedrun';
export { ObservedRunModel } from './model/observedrun';
export { validateResourceYaml } from '../cluster/apiextensions/yamlvalidation';
