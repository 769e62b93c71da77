// POST /api/v1/cleanup: gathers what the analysis needs (current states, the journal's last change
// per flag, telemetry evaluations, experiments and rollout plans) and reports. It only reads.
import type { AppAccess } from '../../../platform/app-access.js';
import { validationError } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import type { JournalService } from '../../core/journal/index.js';
import type { ConfigState, ConfigStateStore, EnvironmentTarget } from '../../core/config/index.js';
import { analyseCleanup, type CleanupEnvironmentInput } from './cleanup-analysis.js';
import type { CleanupReport, CodeReference, EvaluationUsage, LastChange } from './cleanup.model.js';

export const DEFAULT_STALE_AFTER_DAYS = 30;
/** How many journal entries of one environment are read to find each flag's last change. */
const JOURNAL_SCAN_LIMIT = 1000;
const JOURNAL_PAGE = 200;

export interface CleanupRequest {
  appId: string;
  envs?: string[];
  staleAfterDays?: number;
  codeReferences?: CodeReference[];
  now?: string;
}

/** Where telemetry tells how often flags were evaluated (the telemetry module implements it). */
export interface FlagEvaluationSource {
  evaluations(target: EnvironmentTarget, since: string, until: string): Promise<Map<string, EvaluationUsage>>;
}

/** Which unfinished rollout plans use each flag (the rollout plans module implements it). */
export interface RolloutPlanSource {
  unfinishedByFlag(target: EnvironmentTarget): Promise<Map<string, string[]>>;
}

export interface CleanupDeps {
  access: AppAccess;
  environmentsOf: (principal: Principal, appId: string) => Promise<{ slug: string }[]>;
  store: ConfigStateStore;
  journal: JournalService;
  evaluations: FlagEvaluationSource;
  /** Absent while no rollout plans can exist. */
  rolloutPlans?: RolloutPlanSource;
  now?: () => number;
}

export interface CleanupService {
  report(principal: Principal, request: CleanupRequest): Promise<CleanupReport>;
}

/** Running and paused experiments live in the served state (docs/decisions/0018). */
function experimentsByFlag(state: ConfigState): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const experiment of Object.values(state.experiments ?? {}))
    out.set(experiment.flagKey, [...(out.get(experiment.flagKey) ?? []), experiment.id]);
  return out;
}

export function createCleanupService(deps: CleanupDeps): CleanupService {
  const clock = deps.now ?? Date.now;

  /** Newest journal entry touching each flag, read newest first within a bounded scan. */
  async function lastChanges(appId: string, env: string): Promise<Map<string, LastChange>> {
    const found = new Map<string, LastChange>();
    let cursor: string | undefined;
    for (let read = 0; read < JOURNAL_SCAN_LIMIT;) {
      const page = await deps.journal.list({ appId, env, limit: JOURNAL_PAGE, cursor });
      for (const entry of page.changes) {
        for (const d of entry.diff) {
          if (d.resourceType === 'flag' && !found.has(d.key))
            found.set(d.key, { at: entry.createdAt, changeId: entry.id, operation: entry.operation });
        }
      }
      read += page.changes.length;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    return found;
  }

  return {
    async report(principal, request) {
      const now = request.now !== undefined ? Date.parse(request.now) : clock();
      if (Number.isNaN(now))
        throw validationError('now must be an RFC 3339 date-time.', [
          { path: '/now', message: 'must be an RFC 3339 date-time' },
        ]);
      const staleAfterDays = request.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
      const app = await deps.access.requireApp(principal, request.appId, 'read');
      const slugs = request.envs ?? (await deps.environmentsOf(principal, app.id)).map((e) => e.slug);
      const since = new Date(now - staleAfterDays * 86_400_000).toISOString();
      const until = new Date(now).toISOString();

      const envs: CleanupEnvironmentInput[] = [];
      const seen = new Set<string>();
      for (const slug of slugs) {
        const { env } = await deps.access.requireEnv(principal, app.id, slug, 'read');
        if (seen.has(env.slug)) continue; // an alias and its canonical slug name one environment
        seen.add(env.slug);
        const target: EnvironmentTarget = { appId: app.id, envId: env.id, env: env.slug };
        const [current, changes, evaluations, rolloutPlans] = await Promise.all([
          deps.store.current(target),
          lastChanges(app.id, env.slug),
          deps.evaluations.evaluations(target, since, until),
          deps.rolloutPlans ? deps.rolloutPlans.unfinishedByFlag(target) : new Map<string, string[]>(),
        ]);
        envs.push({
          env: env.slug,
          flags: current.state.flags,
          lastChanges: changes,
          evaluations,
          experiments: experimentsByFlag(current.state),
          rolloutPlans,
        });
      }
      const analysis = analyseCleanup({ envs, codeReferences: request.codeReferences, staleAfterDays, now });
      return { asOf: until, staleAfterDays, envs: envs.map((e) => e.env), ...analysis };
    },
  };
}
