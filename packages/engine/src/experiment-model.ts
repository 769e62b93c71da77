// What the engine needs of a running experiment to assign subjects (issue 11): the served state of
// one experiment as it sits in the environment's composite configuration (docs/decisions/0018).
// Pure data, shared by the server and the SDK through the advanced document.
import type { Condition, Variant } from './model.js';

export interface ServedExperiment {
  id: string;
  key: string;
  flagKey: string;
  /** Only running experiments assign; a paused one is kept so resuming restores the same iteration. */
  state: 'running' | 'paused';
  iterationId: string;
  iterationNumber: number;
  iterationRevision: number;
  /** The iteration's salt: allocation bucket of `salt + "/" + targetingKey`, variant bucket of
   * `salt + ":variant/" + targetingKey`. A new iteration draws a new salt. */
  salt: string;
  /** Percent (0..100, two decimals) of eligible traffic; unused in a layer (the range is the allocation). */
  allocation: number;
  /** 2..10 variants of the flag's type, weights summing to 100; the first is the control. */
  variants: Variant[];
  /** All must hold for a subject to be eligible; empty: everyone. */
  targeting: Condition[];
  /** The experiment's bucket range [start, end) of the layer's 10,000 buckets (layer salt). */
  layer: { id: string; salt: string; start: number; end: number } | null;
  /** Subjects whose bucket (holdout salt) is below percentage × 100 are never assigned. */
  holdout: { id: string; salt: string; percentage: number } | null;
}

/** The salt of the variant draw: independent of the allocation draw, so ramps never move anyone. */
export const variantSaltOf = (iterationSalt: string) => `${iterationSalt}:variant`;
