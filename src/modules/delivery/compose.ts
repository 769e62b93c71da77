// The delivery plane: config delivery (legacy documents with ETags), evaluation, OFREP and the SDK
// document (core/v1), over core's configuration state. The compiled snapshots live here; metering
// counts syncs inside config delivery.
import type { FastifyInstance } from 'fastify';
import type { AppSettings } from '../../config.js';
import { entityTagKeyOf } from '../../platform/entity-tag.js';
import { andThen } from '../../platform/maybe-async.js';
import type { Metrics } from '../../platform/prometheus-metrics.js';
import type { Core } from '../core/compose.js';
import type { EnvironmentTarget } from '../core/config/index.js';
import { createDeliveryService, deliveryRoutes } from './config-delivery/index.js';
import { createEvaluationSource, evaluationRoutes } from './evaluation/index.js';
import { createStreamLinks, createStreamTokens, ofrepRoutes } from './ofrep/index.js';
import { advancedRoutes, createAdvancedService } from './sdk-document/index.js';

export interface DeliveryPlaneDeps {
  core: Pick<Core, 'db' | 'apps' | 'auth' | 'keys' | 'configStore'>;
  settings: Pick<AppSettings, 'secret' | 'quotas' | 'configPollIntervalMs'>;
  metrics: Pick<Metrics, 'delivery' | 'evaluation'>;
  now?: () => number;
}

export async function composeDelivery(app: FastifyInstance, { core, settings, metrics, now }: DeliveryPlaneDeps) {
  const delivery = createDeliveryService({
    db: core.db,
    configStore: core.configStore,
    access: core.apps,
    planOf: core.auth.planOf,
    quotas: settings.quotas,
    secret: settings.secret,
    log: app.log,
    metrics: metrics.delivery,
    pollIntervalMs: settings.configPollIntervalMs,
    now,
  });
  await app.register(deliveryRoutes, { delivery });
  const evaluation = createEvaluationSource(delivery, { delivery: metrics.delivery, evaluation: metrics.evaluation });
  await app.register(evaluationRoutes, { source: evaluation });
  await app.register(ofrepRoutes, {
    source: evaluation,
    admit: delivery.admit,
    secret: settings.secret,
    keyRevoked: async (grant) => !(await core.keys.isActive(grant.keyId)),
  });
  const advanced = createAdvancedService({
    access: core.apps,
    store: core.configStore,
    delivery,
    tagKey: entityTagKeyOf(settings.secret),
    log: app.log,
  });
  await app.register(advancedRoutes, { advanced, streamLink: createStreamLinks(createStreamTokens(settings.secret)) });
  return {
    /** Which flags a client (pub_) credential may see: telemetry drops events of the others. */
    clientVisibility: (principal: Parameters<typeof evaluation.current>[0]) =>
      andThen(evaluation.current(principal), (set) => (flagKey: string) => set.visible(flagKey, 'client')),
    /** The version served to server SDKs now (authority shows what a proposal would replace). */
    servedVersion: async (target: EnvironmentTarget) => (await delivery.snapshot(target, 'server')).version,
    /** Writes the config syncs counted so far now, instead of at the meter's next tick. */
    flushSyncCounts: () => delivery.flushSyncCounts(),
    close: () => delivery.close(),
  };
}
