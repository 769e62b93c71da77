// The operator's export policy (issue 13): a destination may only name `https://<allowed host>/…` on
// port 443, and at delivery time every address the host resolves to must be public unless the
// operator opted into private networks. Hosts are checked by exact name, so no wildcard or suffix
// trick widens the list.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../../platform/errors.js';

export interface ExportPolicy {
  allowedHosts: string[];
  allowPrivateNetworks: boolean;
  /** host -> pinned address (ENSIGN_EXPORT_RESOLVE). */
  resolve: Record<string, string>;
  caFile?: string;
}

export const DEFAULT_EXPORT_POLICY: ExportPolicy = { allowedHosts: [], allowPrivateNetworks: false, resolve: {} };

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

// Everything that is not a public unicast address: loopback, private, link-local, CGNAT, multicast,
// documentation, benchmarking, reserved and the IPv6 equivalents (unique local, NAT64 …). IPv4-mapped
// IPv6 addresses are checked against the IPv4 rules by BlockList itself (a ::ffff:0:0/96 rule would
// also match every plain IPv4 address).
const nonPublic = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23],
  ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) nonPublic.addSubnet(net, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type Resolver = (host: string) => Promise<string[]>;

export const dnsResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class AddressNotAllowedError extends Error {
  readonly code = 'address_not_allowed';
}

/**
 * The address a delivery connects to: the pinned one or every resolved one, all of which must be
 * public unless private networks are allowed (one private answer refuses the host, so DNS
 * rebinding between answers gains nothing). The connection is then made to this exact address.
 */
export async function resolveDeliveryAddress(policy: ExportPolicy, host: string, resolver: Resolver = dnsResolver): Promise<string> {
  const pinned = policy.resolve[host.toLowerCase()];
  const addresses = pinned ? [pinned] : await resolver(host);
  if (addresses.length === 0) throw new AddressNotAllowedError(`${host} resolves to no address`);
  if (!policy.allowPrivateNetworks) {
    const refused = addresses.find((a) => !isPublicAddress(a));
    if (refused !== undefined) throw new AddressNotAllowedError(`${host} resolves to ${refused}, which is not a public address`);
  }
  return addresses[0]!;
}
