export interface EnvironmentConfigsTable {
  env_id: string;
  app_id: string;
  /** The current config version: 0 when nothing has been applied. */
  version: number;
  /** JSON of the current composite state (flags, advanced configuration, privacy, settings). */
  state: string;
  updated_at: string;
}

export interface ConfigVersionsTable {
  env_id: string;
  version: number;
  app_id: string;
  change_id: string | null;
  operation: string;
  /** JSON of the journal authority ({ type, userId?, keyFingerprint? }). */
  authority: string;
  /** JSON snapshot of the whole composite state at this version. */
  state: string;
  created_at: string;
}

export interface VersionsTables {
  environment_configs: EnvironmentConfigsTable;
  config_versions: ConfigVersionsTable;
}
