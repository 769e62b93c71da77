// What a client reports to the service: experiment exposures (one per subject, flag, iteration and
// variant within the exposure window), sampled decisions and tracked outcomes, queued and sent in
// batches by the event queue.
import type { EvaluationContext, EvaluationResult } from '@ensign/engine/core';
import type { ClientOptions } from './client-types.js';
import type { Connection } from './document-fetch.js';
import type { EnsignError } from './errors.js';
import { EventQueue, MAX_BATCH, type EventStats } from './event-queue.js';
import { ExposureWindow } from './exposure-window.js';
import { eventId, type TelemetryEvent } from './telemetry-event.js';

export type TelemetrySettings = Exclude<NonNullable<ClientOptions['events']>, false>;

export class ClientTelemetry {
  private readonly queue: EventQueue;
  private readonly exposures: ExposureWindow;
  private readonly decisionRate: number;

  constructor(
    connection: Connection,
    settings: TelemetrySettings,
    sdk: { name: string; version: string },
    private readonly now: () => number,
    onError: (error: EnsignError) => void,
  ) {
    this.queue = new EventQueue(
      connection,
      {
        flushIntervalMs: settings.flushIntervalMs ?? 5000,
        maxQueue: settings.maxQueue ?? 10_000,
        batchSize: Math.min(MAX_BATCH, Math.max(1, settings.batchSize ?? MAX_BATCH)),
      },
      sdk,
      now,
      onError,
    );
    this.exposures = new ExposureWindow(settings.exposureWindowMs ?? 3_600_000);
    this.decisionRate = settings.decisionSampleRate ?? 0;
  }

  get stats(): EventStats {
    return this.queue.stats;
  }

  /** What an evaluation reports: an exposure when it assigned an experiment, a sampled decision. */
  observe(result: EvaluationResult, context: EvaluationContext | undefined): void {
    if (result.experiment?.inExperiment === true) this.expose(result, context);
    if (this.decisionRate > 0 && Math.random() < this.decisionRate) this.decide(result, context);
  }

  /** Queues an `outcome` event for the subject (context.targetingKey) of a metric. */
  track(metricKey: string, context: EvaluationContext | undefined, value?: number): void {
    const subject = context?.targetingKey;
    if (typeof subject !== 'string' || subject === '' || typeof metricKey !== 'string' || metricKey === '') return;
    const event: TelemetryEvent = {
      id: eventId(),
      kind: 'outcome',
      timestamp: new Date(this.now()).toISOString(),
      targetingKey: subject,
      metricKey,
    };
    this.queue.push(typeof value === 'number' && Number.isFinite(value) ? { ...event, metricValue: value } : event);
  }

  flush(): Promise<void> {
    return this.queue.flush();
  }

  /** Flushes until `deadline` (epoch ms), then stops. */
  close(deadline: number): Promise<void> {
    return this.queue.close(deadline);
  }

  private expose(result: EvaluationResult, context: EvaluationContext | undefined): void {
    const subject = context?.targetingKey;
    const experiment = result.experiment!;
    if (typeof subject !== 'string' || subject === '') return;
    const variant = experiment.variant ?? result.variant;
    const now = this.now();
    if (!this.exposures.first(`${subject}\n${result.key}\n${experiment.iterationId}\n${variant}`, now)) return;
    this.queue.push({
      id: eventId(),
      kind: 'exposure',
      timestamp: new Date(now).toISOString(),
      targetingKey: subject,
      flagKey: result.key,
      variant,
      reason: result.reason,
      experimentId: experiment.id,
      iterationId: experiment.iterationId,
      iterationRevision: experiment.iterationRevision,
    });
  }

  private decide(result: EvaluationResult, context: EvaluationContext | undefined): void {
    const subject = context?.targetingKey;
    this.queue.push({
      id: eventId(),
      kind: 'decision',
      timestamp: new Date(this.now()).toISOString(),
      flagKey: result.key,
      reason: result.reason,
      ...(typeof subject === 'string' && subject !== '' ? { targetingKey: subject } : {}),
      ...(result.variant !== undefined ? { variant: result.variant } : {}),
    });
  }
}
