export interface AppsTable {
  id: string;
  owner_user_id: string;
  name: string;
  slug: string;
  created_at: string;
}

export interface EnvironmentsTable {
  id: string;
  app_id: string;
  slug: string;
  name: string;
  created_at: string;
}

export interface AppsTables {
  apps: AppsTable;
  environments: EnvironmentsTable;
}
