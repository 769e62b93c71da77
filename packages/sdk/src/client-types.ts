// The client's public contract: its options, its statuses, the events it emits and the detail of
// an evaluation (re-exported by the package entry).
import type { CompiledFlagSet, CoreDocument, EvaluationResult, RegexEngine } from '@ensign/engine/core';
import type { DocumentStore } from './stores.js';
import type { EnsignError } from './errors.js';

/** Where the configuration being served came from. */
export type ConfigSource = 'network' | 'persisted' | 'bootstrap';

export type ClientStatus = 'starting' | 'ready' | 'stale' | 'fatal' | 'closed';

export interface ClientOptions {
  /** The service's base URL (https://flags.example.com). */
  url: string;
  /** An environment key: sdk_ (server document) or pub_ (the client projection, for browsers). */
  key: string;
  /** A core/v1 document (object or JSON text) to serve until the network answers. */
  bootstrap?: CoreDocument | string;
  /** Keeps the last good document between runs. Default: localStorage where there is one. */
  store?: DocumentStore | null;
  /** Follow the change stream (default true); false polls only. */
  stream?: boolean;
  /** Polling interval; default the document's delivery.pollIntervalSeconds. */
  pollIntervalMs?: number;
  /** Telemetry; false sends nothing (no exposures, track() does nothing). */
  events?:
    | false
    | {
        flushIntervalMs?: number;
        maxQueue?: number;
        batchSize?: number;
        /** One exposure per subject, flag, iteration and variant within this window (default 1 hour). */
        exposureWindowMs?: number;
        /** Fraction (0..1) of evaluations reported as `decision` events (default 0: none). */
        decisionSampleRate?: number;
      };
  /** The regex engine for flags that use `matches`: loaded on first need (default re2js, a lazy
   * import of @ensign/engine/re2, its own chunk in a bundle). */
  regexEngine?: () => Promise<RegexEngine>;
  /** How documents are compiled. Default compileServedDocument: the envelope and each flag's shape
   * are checked, the values not (the server validated them when they were written; decision 0056).
   * Pass compileDocument from @ensign/engine/core to validate every document in full, e.g. a
   * hand-written bootstrap (about 4 KB more, gzipped, in a browser bundle). */
  compile?: (document: CoreDocument) => CompiledFlagSet;
  /** For tests and unusual runtimes. */
  fetch?: typeof fetch;
  now?: () => number;
  sdk?: { name: string; version: string };
}

export interface EvaluationDetail<T> {
  readonly key: string;
  /** The flag's value, or the default given when `reason` is ERROR. */
  readonly value: T;
  readonly variant?: string;
  readonly reason: EvaluationResult['reason'];
  readonly ruleId?: string;
  readonly errorCode?: EvaluationResult['errorCode'];
  readonly errorMessage?: string;
  readonly fallbackClass?: EvaluationResult['fallbackClass'];
  readonly experiment?: EvaluationResult['experiment'];
}

export interface ClientEvents {
  /** The first configuration is being served (and again when a stale client is fresh again). */
  ready: { source: ConfigSource; version: number };
  /** A new document: the keys of the flags whose definition (or experiment) changed. */
  changed: { keys: string[]; version: number };
  /** A refresh failed; the last good document is still served. */
  stale: { error: EnsignError };
  /** A problem worth knowing (a failed refresh, events that could not be sent). */
  error: { error: EnsignError };
  /** The key was refused: the client stops. */
  fatal: { error: EnsignError };
}
