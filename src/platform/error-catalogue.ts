// Every error code the service answers, in one place: its HTTP status and a title. `AppError` only
// takes codes listed here, with their status (a mismatch does not compile); the OpenAPI document
// lists per route and status the codes it can answer (`x-error-codes`, error-schemas.ts) and
// docs/errors.md is generated from this table (a test fails when it drifts). Decision 0051.

export interface ErrorCodeEntry {
  status: number;
  title: string;
  /** Codes the frozen legacy routes (environment keys) answer for it besides its UPPER_SNAKE form. */
  legacy?: readonly string[];
}

export const ERROR_CATALOGUE = {
  // 400: the request is malformed or breaks a rule of its body.
  validation_error: {
    status: 400,
    title: 'The request does not have the shape the route declares, or breaks one of its rules.',
  },
  rollout_variants_exclusive: { status: 400, title: 'A flag rule gives both a rollout and a fixed variant.' },
  idempotency_key_required: { status: 400, title: 'The route needs an Idempotency-Key and none was sent.' },
  export_target_not_allowed: { status: 400, title: 'The export destination is refused by the export policy.' },
  baseline_mismatch: { status: 400, title: 'The analysis input disagrees with the baseline it names.' },
  rollback_invalid: { status: 400, title: 'The rollback target cannot be restored.' },
  // 401: no usable credential.
  unauthorized: {
    status: 401,
    title: 'The credential is missing, malformed, unknown, expired, revoked, or of a type the route refuses.',
    legacy: ['MISSING_CREDENTIAL', 'INVALID_CREDENTIAL', 'KEY_REVOKED', 'WRONG_KEY_TYPE'],
  },
  invalid_credentials: { status: 401, title: 'The e-mail or password of a login is not correct.' },
  // 403: a credential that may not do this.
  forbidden: { status: 403, title: 'The credential may not use this resource.', legacy: ['WRONG_KEY_TYPE'] },
  server_key_required: { status: 403, title: 'Remote evaluation needs a server (sdk_) key.' },
  approval_required: { status: 403, title: 'The environment is protected: the change needs approvals.' },
  cross_origin_rejected: { status: 403, title: 'Login is not accepted from another origin.' },
  capability_missing: { status: 403, title: 'The scoped token does not carry the capability this needs.' },
  self_approval_forbidden: { status: 403, title: 'A proposer cannot approve their own change.' },
  // 404, 405, 408
  not_found: {
    status: 404,
    title: 'The resource, or the route, does not exist (or is not visible to this credential).',
  },
  method_not_allowed: { status: 405, title: 'The method is not allowed on this path.' },
  request_timeout: { status: 408, title: 'The request did not arrive in time.' },
  query_deadline_exceeded: { status: 408, title: 'The query reached its deadline before the page was complete.' },
  // 409: the state does not allow it now.
  version_conflict: { status: 409, title: 'The precondition (version or revision) does not match the current state.' },
  idempotency_conflict: { status: 409, title: 'The idempotency key was used with a different request.' },
  idempotency_replay_expired: {
    status: 409,
    title: 'The idempotency key was used, but its response can no longer be replayed.',
  },
  slug_conflict: { status: 409, title: 'The slug is taken.' },
  name_conflict: { status: 409, title: 'The name is taken.' },
  key_conflict: { status: 409, title: 'The key is taken.' },
  flag_exists: { status: 409, title: 'A flag with this key exists.' },
  flag_missing: { status: 409, title: 'A flag the request relies on does not exist.' },
  flag_in_experiment: { status: 409, title: 'The flag is used by a running experiment.' },
  member_exists: { status: 409, title: 'The user is a member already.' },
  last_owner: { status: 409, title: 'The app would have no owner left.' },
  invitation_exists: { status: 409, title: 'An open invitation for this e-mail exists.' },
  invitation_expired: { status: 409, title: 'The invitation has expired.' },
  layer_full: { status: 409, title: 'The layer has no free bucket range of the requested size.' },
  holdout_in_use: { status: 409, title: 'The holdout is named by an experiment.' },
  experiment_not_draft: { status: 409, title: 'Only a draft experiment can be changed this way.' },
  experiment_not_started: { status: 409, title: 'The experiment has not started.' },
  invalid_transition: { status: 409, title: 'The lifecycle does not allow this move from the current state.' },
  invalid_state: { status: 409, title: 'The resource is not in a state that allows this.' },
  insight_cursor_expired: { status: 409, title: 'The insight cursor is older than it may be.' },
  watermark_mismatch: { status: 409, title: 'The aggregation watermark does not match.' },
  raw_input_gap: { status: 409, title: 'Raw events needed for the aggregation are no longer kept.' },
  recommendation_mismatch: { status: 409, title: 'The recommendation is not the current one.' },
  recommendation_not_actionable: { status: 409, title: 'The recommendation cannot be acted on.' },
  unsafe_recovery: { status: 409, title: 'Recovering this rollout would widen exposure unsafely.' },
  plan_conflict: { status: 409, title: 'The rollout plan conflicts with another.' },
  plan_id_conflict: { status: 409, title: 'The plan id is taken.' },
  stale_proposal: { status: 409, title: 'The proposal was made against a configuration that has changed.' },
  proposal_expired: { status: 409, title: 'The proposal has expired.' },
  proposal_closed: { status: 409, title: 'The proposal is closed.' },
  approvals_missing: { status: 409, title: 'The proposal does not have the approvals it needs.' },
  digest_mismatch: { status: 409, title: 'The plan digest does not match the plan it names.' },
  readback_mismatch: { status: 409, title: 'The configuration read back differs from the one executed.' },
  delivery_not_retryable: { status: 409, title: 'The webhook delivery cannot be retried.' },
  // 413, 414, 415, 429, 431
  payload_too_large: { status: 413, title: 'The request body is larger than the route accepts.' },
  uri_too_long: { status: 414, title: 'A path parameter is longer than the router accepts.' },
  unsupported_media_type: { status: 415, title: 'The body is not declared as JSON.' },
  rate_limited: { status: 429, title: 'Too many requests of this kind; wait for Retry-After.' },
  query_too_costly: { status: 429, title: 'The query would scan more than its ceiling.' },
  app_quota_exceeded: { status: 429, title: 'The plan allows no more apps.' },
  flag_quota_exceeded: { status: 429, title: 'The plan allows no more flags in this environment.' },
  monthly_config_sync_quota_exceeded: {
    status: 429,
    title: 'The environment has used its configuration syncs of this month.',
  },
  headers_too_large: { status: 431, title: 'The request headers are larger than the server accepts.' },
  // 5xx: the service's side.
  internal_error: { status: 500, title: 'An unexpected fault; the request id is in the log with its cause.' },
  config_invalid: { status: 500, title: 'The stored configuration cannot be compiled.' },
  service_unavailable: { status: 503, title: 'Storage is not reachable now; nothing was changed.' },
  config_sync_metering_unavailable: {
    status: 503,
    title: 'Configuration syncs cannot be metered now, so none are served.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The status of `code`, as a literal type. */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CATALOGUE)[C]['status'];

/** The codes answered with status `S`. */
export type CodeOfStatus<S extends number> = { [C in ErrorCode]: StatusOf<C> extends S ? C : never }[ErrorCode];

/** A code of the legacy body: a catalogue code in UPPER_SNAKE, or one of its legacy aliases. */
export type LegacyCode =
  | Uppercase<ErrorCode>
  | { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C] extends { legacy: readonly (infer L)[] } ? L : never }[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}

/**
 * The codes any route may answer with these statuses, whatever it does: a route lists the status
 * alone (`errorResponses(400, 401)`) for them, and names any other code it answers.
 */
export const GENERIC_CODE_OF_STATUS = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  500: 'internal_error',
} as const satisfies Record<number, ErrorCode>;

export type GenericStatus = keyof typeof GENERIC_CODE_OF_STATUS;
