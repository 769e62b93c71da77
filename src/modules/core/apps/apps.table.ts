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
  /** Distinct approvals a configuration change needs (authority workflow); 0 = direct writes allowed. */
  required_approvals: number;
}

export interface AppMembersTable {
  app_id: string;
  user_id: string;
  /** owner, editor or viewer */
  role: string;
  created_at: string;
  updated_at: string;
}

export interface AppInvitationsTable {
  id: string;
  app_id: string;
  /** The invited address, lower-cased and trimmed as sign-up stores it. */
  email: string;
  /** owner, editor or viewer: the role membership starts with */
  role: string;
  /** The owner who invited (a user id). */
  invited_by: string;
  /** pending, accepted, declined or revoked (a pending one past expires_at has expired). */
  status: string;
  created_at: string;
  expires_at: string;
  resolved_at: string | null;
}

export interface AppsTables {
  apps: AppsTable;
  environments: EnvironmentsTable;
  app_members: AppMembersTable;
  app_invitations: AppInvitationsTable;
}
