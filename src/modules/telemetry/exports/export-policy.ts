// The operator's export policy (issue 13): a destination may only name `https://<allowed host>/…` on
// port 443, and at delivery time every address the host resolves to must be public unless the
// operator opted into private networks. Hosts are checked by exact name, so no wildcard or suffix
// trick widens the list.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../../platform/errors.js';

export interface ExportPolicy {
  allowedHosts: string[];
  allowPrivateNetworks: boolean;
  /** host -> pinned address (ENSIGN_EXPORT_RESOLVE). */
  resolve: Record<string, string>;
  caFile?: string;
}

const MAX_URL_LENGTH = 2048;

function refuse(reason: string): AppError {
  return new AppError(400, 'export_target_not_allowed', `The export target is not allowed: ${reason}.`, {
    details: [{ path: '/url', message: reason }],
    resolution: 'Use https://<host>/… on port 443 with a host name the operator lists in ENSIGN_EXPORT_ALLOWED_HOSTS.',
  });
}

/** Checks a target URL against the policy; answers the normalised URL or throws 400 export_target_not_allowed. */
export function checkTarget(policy: ExportPolicy, raw: string): string {
  if (raw.length > MAX_URL_LENGTH) throw refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('it is not an absolute URL');
  }
  if (url.protocol !== 'https:') throw refuse('only https targets are allowed');
  if (url.username !== '' || url.password !== '') throw refuse('credentials in the URL are not allowed');
  // URL drops the default port, so any explicit port left is not 443.
  if (url.port !== '') throw refuse('only port 443 is allowed');
  const host = url.hostname.toLowerCase();
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) throw refuse('IP literals are not allowed; name an allowed host');
  if (!policy.allowedHosts.includes(host)) throw refuse(`host "${host}" is not in the operator's allowed export hosts`);
  if (url.hash !== '') throw refuse('fragments are not allowed');
  return url.toString();
}

// Public means globally reachable unicast, classified by ipaddr.js (`range()` knows the blocks of
// IANA's IPv4 and IPv6 special-purpose registries) rather than by a hand-kept list:
// - IPv4: only the `unicast` range; every special-purpose block, multicast and 240/4 are refused.
// - IPv6: `unicast` inside 2000::/3, the only block IANA allocates as global unicast. That refuses
//   every IPv4-embedding form whatever the IPv4 address: IPv4-mapped (::ffff:a.b.c.d), the
//   deprecated IPv4-compatible form (::a.b.c.d, which ipaddr.js calls `unicast`), SIIT
//   (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96), 6to4 and Teredo, and the rest of the reserved space.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** An IPv6 address as ipaddr.js reads it correctly: ipaddr.js parses the text `::a.b.c.d` as
 * ::ffff:a.b.c.d, so the WHATWG URL parser (exact, RFC 4291 forms) writes it in hex first. A zone
 * id (`fe80::1%eth0`) is refused there: only link-local addresses carry one. */
function ipv6Of(address: string): ipaddr.IPv6 | null {
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
  } catch {
    return null;
  }
}

export function isPublicAddress(address: string): boolean {
  // Node's own parser decides what an address is: only the textual forms a connection would use
  // (no `127.1`, no hex or octal IPv4).
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address).range() === 'unicast';
  if (family !== 6) return false;
  const v6 = ipv6Of(address);
  return v6 !== null && v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

export type Resolver = (host: string) => Promise<string[]>;

export const dnsResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class AddressNotAllowedError extends Error {
  readonly code = 'address_not_allowed';
}

/**
 * The address a delivery connects to: the pinned one or every resolved one, all of which must be
 * public unless private networks are allowed (one private answer refuses the host, so DNS
 * rebinding between answers gains nothing). The connection is then made to this exact address.
 */
export async function resolveDeliveryAddress(
  policy: ExportPolicy,
  host: string,
  resolver: Resolver = dnsResolver,
): Promise<string> {
  const pinned = policy.resolve[host.toLowerCase()];
  const addresses = pinned ? [pinned] : await resolver(host);
  if (addresses.length === 0) throw new AddressNotAllowedError(`${host} resolves to no address`);
  if (!policy.allowPrivateNetworks) {
    const refused = addresses.find((a) => !isPublicAddress(a));
    if (refused !== undefined)
      throw new AddressNotAllowedError(`${host} resolves to ${refused}, which is not a public address`);
  }
  return addresses[0]!;
}
