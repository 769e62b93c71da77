// Who may do what in an app (issue 9): the capabilities of each role, of admin keys and of scoped
// tokens, and the refusal that names what was missing. The access check (app-access.ts) is the only
// caller, so the whole rule set is on this page.
import { OWNER_ACTIONS, type Capability, type Permission, type Role } from '../../../platform/app-access.js';
import { AppError } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';

const EVERY_CAPABILITY: Capability[] = ['read', 'change', 'propose', 'approve', 'execute'];

/** Owners: everything; editors: the five capabilities; viewers: read. */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set<Permission>([...EVERY_CAPABILITY, ...OWNER_ACTIONS]),
  editor: new Set<Permission>(EVERY_CAPABILITY),
  viewer: new Set<Permission>(['read']),
};

/** A key is not a person: it never approves, and members and policy are for people. */
const ADMIN_KEY_PERMISSIONS: ReadonlySet<Permission> = new Set<Permission>([
  'read',
  'change',
  'propose',
  'execute',
  'keys',
]);
/** Environment keys reach their app only to read (delivery quotas). */
const ENVIRONMENT_KEY_PERMISSIONS: ReadonlySet<Permission> = new Set<Permission>(['read']);

export const isRole = (value: string): value is Role => value === 'owner' || value === 'editor' || value === 'viewer';

/** The capabilities a principal holds in an app where its user has `role` (null for keys). */
export function permissionsOf(principal: Principal, role: Role | null): ReadonlySet<Permission> {
  if (principal.type === 'admin') return ADMIN_KEY_PERMISSIONS;
  if (principal.type !== 'cli') return ENVIRONMENT_KEY_PERMISSIONS;
  const granted = role ? ROLE_PERMISSIONS[role] : new Set<Permission>();
  // A scoped token holds what it lists and its user's current role allows; never an owner action.
  if (!principal.scoped) return granted;
  const listed = new Set(principal.capabilities ?? []);
  return new Set([...granted].filter((p) => listed.has(p) && (EVERY_CAPABILITY as string[]).includes(p)));
}

const WORKFLOW: Permission[] = ['propose', 'approve', 'execute'];

function holderOf(principal: Principal, role: Role | null): string {
  if (principal.type === 'admin') return 'An admin key';
  if (principal.type === 'cli' && principal.scoped) return `This scoped token (role ${role ?? 'none'})`;
  return `Your role (${role ?? 'none'})`;
}

/**
 * 403 for a missing permission: `capability_missing` for the authority workflow's own capabilities
 * (the seed names that refusal), `forbidden` for everything else, with what was needed.
 */
export function permissionDenied(principal: Principal, role: Role | null, need: Permission): AppError {
  const holder = holderOf(principal, role);
  const metadata = { required: need, role };
  if (WORKFLOW.includes(need)) {
    return new AppError(403, 'capability_missing', `${holder} does not have the ${need} capability in this app.`, {
      metadata,
      resolution:
        need === 'approve' && principal.type === 'admin'
          ? 'Approvals come from people: approve with the cli_ token of an owner or editor who did not propose the change.'
          : `Use a credential whose role grants ${need} (owner or editor), or a scoped token that lists it.`,
    });
  }
  const resolution = OWNER_ACTIONS.includes(need as never)
    ? 'Ask an owner of the app to do this, or to make you an owner.'
    : need === 'read'
      ? 'Use a credential that lists the read capability.'
      : 'Ask an owner of the app for the editor role, or use a credential that lists this capability.';
  return new AppError(
    403,
    'forbidden',
    `${holder} does not allow ${need === 'read' ? 'reading' : `the ${need} permission`} in this app.`,
    { metadata, resolution },
  );
}
