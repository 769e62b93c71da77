// Aggregation runs and results (issue 12). A run is a leased job: it reads the iteration's raw events
// up to the telemetry watermark, reduces them (iteration-aggregate.ts) and pins the aggregate. Results
// analyse the newest succeeded run of the iteration's revision with descriptive-v1. Runs start on a
// schedule (at most once a minute per iteration while its environment receives events), on
// recompute, and after a subject's erasure (so no result keeps the subject). Queries live in the
// repositories, the rules that need no database in aggregation-runs.model.ts, the job registration
// in aggregation-runs.jobs.ts; this file orders them.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/database.js';
import { isUniqueViolation } from '../../../db/constraint-errors.js';
import { inTransaction, type Executor } from '../../../db/transaction.js';
import { PermanentJobError } from '../../../jobs/index.js';
import type { AppAccess } from '../../../platform/app-access.js';
import { AppError, conflict, notFound } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { Principal } from '../../../platform/principal.js';
import { environmentSlugOf } from '../../core/apps/index.js';
import type { MetricsService } from '../experiment-metrics/index.js';
import { FUTURE_TOLERANCE_MS, RAW_RETENTION_MS, telemetryReadModel } from '../../telemetry/ingestion/index.js';
import { enqueueRun } from './aggregation-runs.jobs.js';
import {
  bounded,
  pinnedAggregateOf,
  publicRun,
  requestHashOf,
  resultsOf,
  scheduleDecision,
  type RecomputeRequest,
  type StoredRun,
} from './aggregation-runs.model.js';
import * as runs from './aggregation-runs.repository.js';
import * as repo from './experiments.repository.js';
import {
  aggregateIteration,
  AggregationInputInvalid,
  AggregationTooLarge,
  type AggregatedMetric,
} from './iteration-aggregate.js';
import type {
  AggregationRun,
  AggregationRunCause,
  ExperimentResults,
  ExperimentResultsSource,
} from './results.model.js';

const { iterationAssignments, outcomeEvents, watermarkOf } = telemetryReadModel;

/** Experiments the scheduler looks at per tick (the oldest-run first ones wait for the next tick). */
const SCHEDULE_BATCH = 500;

export interface ResultsQuery {
  appId: string;
  env: string;
  iterationId: string;
  iterationRevision: number;
}

export interface AggregationService extends ExperimentResultsSource {
  results(principal: Principal, experimentId: string, query: ResultsQuery): Promise<ExperimentResults>;
  recompute(
    principal: Principal,
    experimentId: string,
    body: RecomputeRequest,
  ): Promise<{ run: AggregationRun; replayed: boolean }>;
  run(
    principal: Principal,
    experimentId: string,
    runId: string,
    query: { appId: string; env: string },
  ): Promise<AggregationRun>;
  /** The job: computes and pins one run (idempotent: a finished run is left alone). */
  execute(runId: string): Promise<void>;
  /**
   * Records a run whose job went dead (its last attempt failed, or its process died on it), so it no
   * longer counts as running; in the caller's transaction when given (the jobs' onDead hook).
   */
  fail(runId: string, message: string, trx?: Executor): Promise<void>;
  /** The scheduler tick: queues a run for every active iteration whose environment received events since its last run. */
  schedule(): Promise<number>;
  /**
   * In the transaction that deletes an erased subject's events: queue a recompute of every iteration
   * it was in that has runs (so none keeps it), and answer the runs, which the erasure job executes at once.
   */
  queueAfterErasure(
    trx: Executor,
    envId: string,
    iterations: { experimentId: string; iterationId: string }[],
  ): Promise<string[]>;
}

export interface AggregationDeps {
  db: Kysely<Database>;
  access: AppAccess;
  metrics: Pick<MetricsService, 'findRevision'>;
  /** Keys subjects in a run's memory. */
  secret: string;
  now?: () => number;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function createAggregationService(deps: AggregationDeps): AggregationService {
  const now = deps.now ?? Date.now;
  const { db } = deps;

  async function experimentOf(
    executor: Executor,
    principal: Principal,
    appId: string,
    env: string,
    id: string,
    need: 'read' | 'change',
  ) {
    const { env: envRef } = await deps.access.requireEnv(principal, appId, env, need, executor);
    const row = await repo.findExperiment(executor, envRef.id, id);
    if (!row) throw notFound(`Experiment ${id}`);
    return row;
  }

  async function iterationRevisionExists(
    executor: Executor,
    experimentId: string,
    iterationId: string,
    revision: number,
  ) {
    const iteration = await repo.findIterationRevision(executor, experimentId, iterationId, revision);
    if (!iteration) throw notFound(`Iteration ${iterationId} revision ${revision} of experiment ${experimentId}`);
    return { startedAt: Date.parse(iteration.startedAt), number: iteration.number };
  }

  const latestSucceeded = runs.latestSucceededRun;

  async function createRun(
    trx: Executor,
    input: {
      envId: string;
      experimentId: string;
      iterationId: string;
      iterationRevision: number;
      cause: AggregationRunCause;
      idempotencyKey?: string;
      requestHash?: string;
    },
  ): Promise<StoredRun> {
    const run = await runs.insertRun(trx, { ...input, id: newId('run'), queuedAt: iso(now()) });
    await enqueueRun(trx, run.id, now);
    return run;
  }

  async function finish(runId: string, state: 'succeeded' | 'failed', outcome: runs.RunOutcome) {
    await inTransaction(db, (trx) => runs.finishRun(trx, runId, state, outcome, iso(now())));
  }

  async function metricsOf(envId: string, appId: string, refs: { metricId: string; revision: number }[]) {
    const slug = await environmentSlugOf(db, envId);
    if (slug === null) throw new Error(`environment ${envId} of an aggregation run no longer exists`);
    const found = new Map<string, Awaited<ReturnType<AggregationDeps['metrics']['findRevision']>>>();
    for (const ref of refs) {
      if (found.has(ref.metricId)) continue;
      found.set(
        ref.metricId,
        await deps.metrics.findRevision(db, { appId, envId, env: slug }, ref.metricId, ref.revision),
      );
    }
    return found;
  }

  async function execute(runId: string): Promise<void> {
    const run = await runs.findRun(db, runId);
    if (!run || run.state === 'succeeded' || run.state === 'failed' || run.state === 'superseded') return;
    const experiment = await repo.findExperimentById(db, run.experimentId);
    const iteration = await repo.findIterationRevision(db, run.experimentId, run.iterationId, run.iterationRevision);
    if (!experiment || !iteration) {
      await finish(runId, 'failed', {
        diagnostics: ['The experiment or its iteration no longer exists.'],
        remediation: 'Nothing to recompute.',
      });
      return;
    }
    const watermark = await watermarkOf(db, run.envId);
    const startedAt = iso(now());
    await runs.markRunning(db, runId, startedAt);
    const definition = experiment.definition;
    const refs = [
      ...(definition.primaryMetric ? [definition.primaryMetric] : []),
      ...definition.secondaryMetrics,
      ...definition.guardrailMetrics,
    ];
    const metrics = await metricsOf(run.envId, experiment.appId, refs);
    const diagnostics: string[] = [];
    const specs: AggregatedMetric[] = [];
    for (const [metricId, m] of metrics) {
      if (!m) diagnostics.push(`Metric ${metricId} at the pinned revision no longer exists; it is left out.`);
      else
        specs.push({
          metricId,
          kind: m.kind,
          eventMetricKey: m.eventMetricKey,
          denominatorMetricKey: m.denominatorMetricKey,
          winsorizePercentile: m.winsorizePercentile,
        });
    }
    const receivedUpTo = watermark ? Number(watermark.receivedAt) : 0;
    const started = Date.parse(iteration.startedAt);
    // The iteration ends where the next one starts; the current one runs up to the watermark.
    const next = await repo.nextIterationStart(db, experiment.id, iteration.number);
    const end = next ? Date.parse(next) : now() + 5 * 60_000;
    // Exposures name their iteration; the 5 minutes of clock skew ingestion tolerates also apply to
    // the start, so a client whose clock runs behind is not cut off.
    const window = { envId: run.envId, from: started - FUTURE_TOLERANCE_MS, to: end, receivedUpTo };
    let aggregate;
    try {
      aggregate = await aggregateIteration({
        secret: deps.secret,
        variants: definition.variants,
        metrics: specs,
        cuped: definition.analysis.cuped,
        assignments: iterationAssignments(db, window, experiment.id, iteration.id),
        outcomes: (keys, from) => outcomeEvents(db, { ...window, from: Math.max(0, from) }, keys),
      });
    } catch (err) {
      if (err instanceof AggregationTooLarge) {
        await finish(runId, 'failed', {
          diagnostics: [err.message],
          remediation:
            'Start a new iteration with a smaller allocation, or analyse this one outside Ensign from the raw export.',
        });
        throw new PermanentJobError(err.message);
      }
      if (err instanceof AggregationInputInvalid) {
        await finish(runId, 'failed', {
          diagnostics: [err.message],
          remediation:
            'Outcome values are finite and at most 10^15 in magnitude (ingestion refuses others); erase the subject whose events carry the value, or wait for the 30-day retention to drop them, then recompute. The previous aggregate stays pinned.',
        });
        throw new PermanentJobError(err.message);
      }
      throw err;
    }
    const found = new Set(specs.map((s) => s.metricId));
    const pinned = pinnedAggregateOf(definition, aggregate, found, (id) => metrics.get(id)?.direction !== 'decrease');
    if (!watermark) diagnostics.push('The environment has received no events yet.');
    await finish(runId, 'succeeded', {
      pinned: { aggregate: pinned, watermark: { receivedAt: receivedUpTo, eventId: watermark?.eventId ?? '' } },
      diagnostics: bounded([...diagnostics, ...aggregate.diagnostics]),
      remediation: null,
    });
  }

  const newestRunOf = runs.newestRun;

  return {
    execute,

    async fail(runId, message, trx = db) {
      await runs.failUnfinishedRun(
        trx,
        runId,
        {
          diagnostics: bounded([`The run failed: ${message}`]),
          remediation:
            'Recompute with a new idempotencyKey once the cause is fixed; the previous aggregate stays pinned.',
        },
        iso(now()),
      );
    },

    async results(principal, experimentId, query) {
      const experiment = await experimentOf(db, principal, query.appId, query.env, experimentId, 'read');
      await iterationRevisionExists(db, experimentId, query.iterationId, query.iterationRevision);
      const run = await latestSucceeded(db, experimentId, query.iterationId, query.iterationRevision);
      if (!run) {
        // The first read of an iteration without a run asks for one (the scheduler would, within a minute).
        const newest = await newestRunOf(db, experimentId, query.iterationId);
        if (!newest) {
          await inTransaction(db, (trx) =>
            createRun(trx, {
              envId: experiment.envId,
              experimentId,
              iterationId: query.iterationId,
              iterationRevision: query.iterationRevision,
              cause: 'schedule',
            }),
          );
        }
        throw new AppError(
          404,
          'not_found',
          `No aggregation run of iteration ${query.iterationId} revision ${query.iterationRevision} has succeeded yet.`,
          {
            resolution:
              'A run has been queued; read the results again in a minute, or follow it through POST …/results/recompute and GET …/results/runs/{runId}.',
          },
        );
      }
      return resultsOf(experiment, run, now());
    },

    async latest(input) {
      const experiment = await repo.findExperiment(db, input.envId, input.experimentId);
      if (!experiment) return null;
      const run = await latestSucceeded(db, input.experimentId, input.iterationId, input.iterationRevision);
      return run ? resultsOf(experiment, run, now()) : null;
    },

    async recompute(principal, experimentId, body) {
      const experiment = await experimentOf(db, principal, body.appId, body.env, experimentId, 'change');
      const requestHash = requestHashOf(experimentId, body);
      const replay = async () => {
        const prior = await runs.runByIdempotencyKey(db, experimentId, body.idempotencyKey);
        if (!prior) return null;
        if (prior.requestHash !== requestHash) {
          throw conflict('idempotency_conflict', 'This idempotencyKey was used with a different recompute request.', {
            resolution: 'Use a new idempotencyKey for a different request.',
          });
        }
        return { run: publicRun(prior), replayed: true };
      };
      const replayed = await replay();
      if (replayed) return replayed;
      const iteration = await iterationRevisionExists(db, experimentId, body.iterationId, body.iterationRevision);
      if (iteration.startedAt < now() - RAW_RETENTION_MS) {
        throw conflict(
          'raw_input_gap',
          `Raw events of iteration ${body.iterationId} from before ${iso(now() - RAW_RETENTION_MS)} were purged by the 30-day retention; a recompute would silently lose them.`,
          {
            resolution: 'Keep the pinned aggregate, or start a new iteration.',
          },
        );
      }
      try {
        const row = await inTransaction(db, async (trx) => {
          const running = await runs.runningRunId(trx, experimentId, body.iterationId);
          if (running) {
            throw conflict(
              'unsafe_recovery',
              `Run ${running} of this iteration is running; a second run now could race it.`,
              { resolution: 'Wait for it to finish (GET …/results/runs/{runId}), then recompute.' },
            );
          }
          if (body.priorWatermark) {
            const pinned = await latestSucceeded(trx, experimentId, body.iterationId, body.iterationRevision);
            const matches =
              pinned?.watermark?.receivedAt === body.priorWatermark.receivedAt &&
              pinned.watermark.eventId === body.priorWatermark.eventId;
            if (!matches) {
              throw conflict(
                'watermark_mismatch',
                'priorWatermark is not the watermark of the pinned aggregate: the results changed since you read them.',
                {
                  resolution: 'Read the results again and send their aggregate.watermark.',
                  details: [
                    {
                      path: '/priorWatermark',
                      message: pinned
                        ? `the pinned watermark is ${pinned.watermark?.receivedAt ?? null}/${pinned.watermark?.eventId ?? null}`
                        : 'no aggregate is pinned yet',
                    },
                  ],
                },
              );
            }
          }
          return createRun(trx, {
            envId: experiment.envId,
            experimentId,
            iterationId: body.iterationId,
            iterationRevision: body.iterationRevision,
            cause: 'recompute',
            idempotencyKey: body.idempotencyKey,
            requestHash,
          });
        });
        return { run: publicRun(row), replayed: false };
      } catch (err) {
        // Two requests with one key at once: the loser answers the winner's run.
        if (isUniqueViolation(err)) {
          const again = await replay();
          if (again) return again;
        }
        throw err;
      }
    },

    async run(principal, experimentId, runId, query) {
      await experimentOf(db, principal, query.appId, query.env, experimentId, 'read');
      const row = await runs.findRunOfExperiment(db, experimentId, runId);
      if (!row) throw notFound(`Run ${runId}`);
      return publicRun(row);
    },

    async schedule() {
      const active = await repo.activeExperiments(db, SCHEDULE_BATCH);
      let queued = 0;
      for (const experiment of active) {
        const iteration = await repo.currentIteration(db, experiment.id);
        if (!iteration) continue;
        const watermark = await watermarkOf(db, experiment.envId);
        const newest = await newestRunOf(db, experiment.id, iteration.id);
        const cause = scheduleDecision({
          newest,
          iterationRevision: iteration.revision,
          now: now(),
          watermark: watermark && { receivedAt: Number(watermark.receivedAt), eventId: watermark.eventId },
          // Only asked of an iteration without runs, which is queued anyway.
          hadRuns: newest !== undefined || (await runs.hasAnyRun(db, experiment.id)),
        });
        if (cause === null) continue;
        await inTransaction(db, (trx) =>
          createRun(trx, {
            envId: experiment.envId,
            experimentId: experiment.id,
            iterationId: iteration.id,
            iterationRevision: iteration.revision,
            cause,
          }),
        );
        queued++;
      }
      return queued;
    },

    async queueAfterErasure(trx, envId, iterations) {
      const runIds: string[] = [];
      for (const { experimentId, iterationId } of iterations) {
        const newest = await newestRunOf(trx, experimentId, iterationId);
        if (!newest || newest.envId !== envId) continue;
        const row = await createRun(trx, {
          envId,
          experimentId,
          iterationId,
          iterationRevision: newest.iterationRevision,
          cause: 'recompute',
        });
        runIds.push(row.id);
      }
      return runIds;
    },
  };
}
