export interface ConfigSyncCountsTable {
  env_id: string;
  /** UTC calendar month, `YYYY-MM`. */
  month: string;
  app_id: string;
  count: number;
  updated_at: string;
}

export interface MeteringTables {
  config_sync_counts: ConfigSyncCountsTable;
}
