export interface ExperimentBaselinesTable {
  id: string;
  env_id: string;
  experiment_id: string;
  /** 1, 2, … per experiment. */
  version: number;
  metric_id: string;
  metric_revision: number;
  window_from: string;
  window_to: string;
  units: number;
  mean: number;
  variance: number;
  /** telemetry | manual */
  source: string;
  captured_at: string;
}

export interface BaselinesTables {
  experiment_baselines: ExperimentBaselinesTable;
}
