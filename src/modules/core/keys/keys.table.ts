export interface ApiKeysTable {
  id: string;
  app_id: string;
  env_id: string | null;
  type: string;
  name: string | null;
  token_hash: string;
  prefix: string;
  status: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface KeysTables {
  api_keys: ApiKeysTable;
}
