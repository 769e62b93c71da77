// Advanced configuration use cases: which environment and audience a request reads, its compiled
// document (kept with delivery's snapshot, so built once per version and audience), sync metering
// through delivery's meter, and the two read-only analyses (impact, inspect).
import type { AppAccess } from '../../../platform/app-access.js';
import { AppError, forbidden, validationError, versionConflict } from '../../../platform/errors.js';
import { nowIso } from '../../../platform/ids.js';
import type { EnvironmentPrincipal, Principal } from '../../../platform/principal.js';
import { canonicalEnvSlug } from '../../core/apps/index.js';
import type { BulkChanges } from '../../core/flags/index.js';
import type { SyncAdmission } from '../metering/index.js';
import {
  resolveTarget,
  type ConfigState,
  type ConfigStateStore,
  type EnvironmentTarget,
} from '../../core/config/index.js';
import type { CoreAudience } from './advanced.model.js';
import { compileCoreDocument, type CompiledCoreDocument, type CoreDocumentBuild } from './compiled-document.js';
import { impactOf, type ImpactReport } from './impact.js';
import { inspectDocument } from './inspect.js';
import type { Inspection, ProposedDocument } from './inspection.model.js';

/** What this module needs of delivery: the process's one snapshot cache and one sync meter, so
 * advanced-config syncs count against the same monthly quota as the legacy routes. */
export interface DeliveryAccess {
  /** The snapshot of an environment for an audience; each new version is a new object. */
  snapshot(target: EnvironmentTarget, audience: CoreAudience): SnapshotOf | Promise<SnapshotOf>;
  admit(principal: EnvironmentPrincipal): SyncAdmission | Promise<SyncAdmission>;
}

/** Delivery's snapshot of one (environment, audience): a new object for each version. */
export interface SnapshotOf {
  readonly version: number;
  readonly state: ConfigState;
}

export interface AdvancedDeps {
  access: AppAccess;
  store: ConfigStateStore;
  delivery: DeliveryAccess;
  tagKey: Buffer;
  log: { warn(obj: object, msg: string): void };
}

export interface DocumentRequest {
  target: EnvironmentTarget;
  audience: CoreAudience;
  /** Whose entity tag: the key id, or the login token id. */
  credentialId: string;
  /** Set for sdk_ and pub_ keys, whose reads are syncs; management reads are not counted. */
  meteredBy?: EnvironmentPrincipal;
}

export interface AdvancedService {
  /** Who reads what: 400 / 403 / 404 as the seed's authentication rule 5 says. */
  documentRequest(
    principal: Principal,
    query: { appId?: string; env?: string },
  ): DocumentRequest | Promise<DocumentRequest>;
  /** The compiled document (500 config_invalid when the stored configuration cannot be compiled). */
  document(request: DocumentRequest): CompiledCoreDocument | Promise<CompiledCoreDocument>;
  admit(principal: EnvironmentPrincipal): SyncAdmission | Promise<SyncAdmission>;
  impact(principal: Principal, input: { appId: string; env: string; changes: BulkChanges }): Promise<ImpactReport>;
  inspect(
    principal: Principal,
    input: { appId: string; env: string; baseVersion: number; document: ProposedDocument },
  ): Promise<Inspection>;
}

const MAX_FRESHER = 1000;

function configInvalid(management: boolean, reason: string) {
  // Environment keys may be pub_ keys in a browser: the problem names flags they must not learn of.
  const message = management
    ? `The stored configuration of this environment cannot be served: ${reason}`
    : 'The stored configuration of this environment cannot be served.';
  return new AppError(500, 'config_invalid', message, {
    legacyCode: 'CONFIG_INVALID',
    resolution:
      'Keep using the configuration you have. An operator can see the problem with GET /api/v1/advanced-config (cli_ or admin_) and fix the flags it names.',
  });
}

function missingEnvironment(query: { appId?: string; env?: string }) {
  const missing = (['appId', 'env'] as const).filter((field) => query[field] === undefined);
  return validationError(
    `cli_ and admin_ credentials must give both appId and env (missing: ${missing.join(', ')}).`,
    missing.map((field) => ({ path: `querystring.${field}`, message: 'is required with cli_ and admin_ credentials' })),
  );
}

export function createAdvancedService(deps: AdvancedDeps): AdvancedService {
  const { access, store, delivery } = deps;
  // Keyed by delivery's snapshot: dropped with it when a newer version replaces it.
  const builds = new WeakMap<SnapshotOf, CoreDocumentBuild>();

  function buildOf(snapshot: SnapshotOf, request: DocumentRequest): CoreDocumentBuild {
    let build = builds.get(snapshot);
    if (build === undefined) {
      const { target, audience } = request;
      build = compileCoreDocument(
        target,
        { version: snapshot.version, state: snapshot.state },
        audience,
        deps.tagKey,
        nowIso(),
      );
      if (!build.ok)
        deps.log.warn(
          { envId: target.envId, version: snapshot.version, issues: build.error.issues },
          'stored configuration cannot be compiled',
        );
      builds.set(snapshot, build);
    }
    return build;
  }

  function documentOf(snapshot: SnapshotOf, request: DocumentRequest): CompiledCoreDocument {
    const build = buildOf(snapshot, request);
    if (!build.ok) throw configInvalid(request.meteredBy === undefined, build.error.message);
    return build.document;
  }

  /** Versions read by management requests before delivery's snapshot caught up, by environment. */
  const fresher = new Map<string, SnapshotOf>();

  /**
   * Management reads see their own writes: delivery's snapshots follow changes within a second
   * (notifications, polling), but `ensign flags set` followed by `ensign advanced show` must not
   * show the version before. Environment keys take the snapshot as it is, like the legacy routes.
   */
  async function latestDocument(request: DocumentRequest): Promise<CompiledCoreDocument> {
    const [held, current] = await Promise.all([
      delivery.snapshot(request.target, request.audience),
      store.current(request.target),
    ]);
    if (held.version >= current.version) return documentOf(held, request);
    const key = `${request.target.envId}/${request.audience}`;
    let snapshot = fresher.get(key);
    if (snapshot === undefined || snapshot.version < current.version) {
      if (fresher.size >= MAX_FRESHER) fresher.delete(fresher.keys().next().value!);
      snapshot = current;
      fresher.set(key, snapshot);
    }
    return documentOf(snapshot, request);
  }

  return {
    documentRequest(principal, query) {
      if (principal.type === 'sdk' || principal.type === 'pub') {
        // Environment keys infer both; naming another app or environment is asking for what the key cannot see.
        if (
          (query.appId !== undefined && query.appId !== principal.appId) ||
          (query.env !== undefined && canonicalEnvSlug(query.env) !== principal.env)
        ) {
          throw forbidden(
            `This ${principal.type}_ key reads its own environment only; leave appId and env out or give its own.`,
          );
        }
        const target = { appId: principal.appId, envId: principal.envId, env: principal.env };
        return {
          target,
          audience: principal.type === 'pub' ? 'client' : 'server',
          credentialId: principal.keyId,
          meteredBy: principal,
        };
      }
      if (query.appId === undefined || query.env === undefined) throw missingEnvironment(query);
      const credentialId = principal.type === 'cli' ? principal.tokenId : principal.keyId;
      return resolveTarget(access, principal, query.appId, query.env, 'read').then(({ appId, envId, env }) => ({
        target: { appId, envId, env },
        audience: 'server' as const,
        credentialId,
      }));
    },
    document(request) {
      if (request.meteredBy === undefined) return latestDocument(request);
      const found = delivery.snapshot(request.target, request.audience);
      return found instanceof Promise ? found.then((s) => documentOf(s, request)) : documentOf(found, request);
    },
    admit: (principal) => delivery.admit(principal),
    async impact(principal, input) {
      const current = await store.current(await resolveTarget(access, principal, input.appId, input.env, 'read'));
      return impactOf(current, input.changes, nowIso());
    },
    async inspect(principal, input) {
      const current = await store.current(await resolveTarget(access, principal, input.appId, input.env, 'read'));
      if (input.baseVersion !== current.version) throw versionConflict(current.version);
      return inspectDocument(current, input.document);
    },
  };
}
