// Issue 18: the export destination's public-address check against every block of IANA's IPv4 and
// IPv6 special-purpose address registries (iana.org/assignments/iana-ipv4-special-registry and
// iana-ipv6-special-registry, as of 2025), the blocks around them, and the IPv4-embedding IPv6
// forms that passed the hand-kept list (::a.b.c.d and ::ffff:0:a.b.c.d).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import ipaddr from 'ipaddr.js';
import { isPublicAddress, resolveDeliveryAddress, type ExportPolicy } from './export-policy.js';

const IPV4_SPECIAL: [string, string][] = [
  ['0.0.0.0/8', '"This network"'],
  ['0.0.0.0/32', '"This host on this network"'],
  ['10.0.0.0/8', 'Private-Use'],
  ['100.64.0.0/10', 'Shared Address Space'],
  ['127.0.0.0/8', 'Loopback'],
  ['169.254.0.0/16', 'Link Local'],
  ['172.16.0.0/12', 'Private-Use'],
  ['192.0.0.0/24', 'IETF Protocol Assignments'],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix'],
  ['192.0.0.8/32', 'IPv4 dummy address'],
  ['192.0.0.9/32', 'Port Control Protocol Anycast'],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast'],
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery'],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery'],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)'],
  ['192.31.196.0/24', 'AS112-v4'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)'],
  ['192.168.0.0/16', 'Private-Use'],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service'],
  ['198.18.0.0/15', 'Benchmarking'],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)'],
  ['240.0.0.0/4', 'Reserved'],
  ['255.255.255.255/32', 'Limited Broadcast'],
  // Not in the special-purpose registry, but never a webhook receiver.
  ['224.0.0.0/4', 'Multicast'],
];

const IPV6_SPECIAL: [string, string][] = [
  ['::1/128', 'Loopback Address'],
  ['::/128', 'Unspecified Address'],
  ['::ffff:0:0/96', 'IPv4-mapped Address'],
  ['64:ff9b::/96', 'IPv4-IPv6 Translat.'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 Translat. (local use)'],
  ['100::/64', 'Discard-Only Address Block'],
  ['100:0:0:1::/64', 'Dummy IPv6 Prefix'],
  ['2001::/23', 'IETF Protocol Assignments'],
  ['2001::/32', 'TEREDO'],
  ['2001:1::1/128', 'Port Control Protocol Anycast'],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast'],
  ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast'],
  ['2001:2::/48', 'Benchmarking'],
  ['2001:3::/32', 'AMT'],
  ['2001:4:112::/48', 'AS112-v6'],
  ['2001:10::/28', 'Deprecated (previously ORCHID)'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix'],
  ['2001:db8::/32', 'Documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'Direct Delegation AS112 Service'],
  ['3fff::/20', 'Documentation'],
  ['5f00::/16', 'Segment Routing (SRv6) SIDs'],
  ['fc00::/7', 'Unique-Local'],
  ['fe80::/10', 'Link-Local Unicast'],
  // Outside the registry but not global unicast: multicast, deprecated site-local, the deprecated
  // IPv4-compatible form and SIIT's IPv4-translated form.
  ['ff00::/8', 'Multicast'],
  ['fec0::/10', 'Deprecated site-local'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0:0/96', 'IPv4-translated (SIIT)'],
];

/** The first, a middle and the last address of a block. */
function samples(cidr: string): string[] {
  const [network, prefix] = ipaddr.parseCIDR(cidr);
  if (network.kind() === 'ipv4') {
    const first = ipaddr.IPv4.networkAddressFromCIDR(cidr).toString();
    const last = ipaddr.IPv4.broadcastAddressFromCIDR(cidr).toString();
    const bytes = ipaddr.IPv4.networkAddressFromCIDR(cidr).toByteArray();
    if (prefix < 32) bytes[Math.min(3, Math.floor(prefix / 8))]! |= 1 << (7 - (prefix % 8));
    return [first, ipaddr.fromByteArray(bytes).toString(), last];
  }
  const first = ipaddr.IPv6.networkAddressFromCIDR(cidr);
  const last = ipaddr.IPv6.broadcastAddressFromCIDR(cidr);
  const bytes = first.toByteArray();
  if (prefix < 128) bytes[Math.floor(prefix / 8)]! |= 1 << (7 - (prefix % 8));
  return [first.toString(), ipaddr.fromByteArray(bytes).toString(), last.toString()];
}

describe('export destination addresses', () => {
  test('every block of the IANA IPv4 special-purpose registry is refused, also written as IPv4-mapped IPv6', () => {
    for (const [cidr, name] of IPV4_SPECIAL) {
      for (const address of samples(cidr)) {
        assert.equal(isPublicAddress(address), false, `${address} (${cidr}, ${name})`);
        assert.equal(isPublicAddress(`::ffff:${address}`), false, `::ffff:${address} (${cidr}, ${name})`);
      }
    }
  });

  test('every block of the IANA IPv6 special-purpose registry is refused', () => {
    for (const [cidr, name] of IPV6_SPECIAL) {
      for (const address of samples(cidr))
        assert.equal(isPublicAddress(address), false, `${address} (${cidr}, ${name})`);
    }
  });

  test('every IPv4-embedding IPv6 form is refused, whatever its IPv4 address (mapped, compatible, SIIT, NAT64, 6to4, Teredo)', () => {
    for (const v4 of ['8.8.8.8', '93.184.216.34', '127.0.0.1', '10.0.0.1']) {
      for (const form of [`::${v4}`, `::ffff:0:${v4}`, `64:ff9b::${v4}`, `64:ff9b:1::${v4}`])
        assert.equal(isPublicAddress(form), false, form);
    }
    for (const form of [
      '::ffff:8.8.8.8',
      '::ffff:0808:0808',
      '::ffff:7f00:1',
      '::808:808',
      '::7f00:1',
      '2002:808:808::1',
      '2001:0:808:808::1',
    ])
      assert.equal(isPublicAddress(form), false, form);
    for (const form of ['fe80::1%eth0', 'fe80::1%1']) assert.equal(isPublicAddress(form), false, form);
  });

  test('public unicast addresses pass, including the ones next to special blocks', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '1.0.0.0',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '126.255.255.255',
      '128.0.0.0',
      '169.253.255.255',
      '169.255.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '191.255.255.255',
      '192.0.1.0',
      '192.0.3.0',
      '192.31.195.255',
      '192.31.197.0',
      '192.88.98.255',
      '192.88.100.0',
      '192.167.255.255',
      '192.169.0.0',
      '198.17.255.255',
      '198.20.0.0',
      '198.51.99.255',
      '198.51.101.0',
      '203.0.112.255',
      '203.0.114.0',
      '223.255.255.255',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '2606:2800:220:1::1',
      '2001:4860:4860::8888',
      '2000::1',
      '2001:200::1',
      '2003::1',
      '3ffe:ffff::1',
      '2620:4f:7fff:ffff::1',
      '2620:4f:8001::1',
      '3fff:1000::1',
    ]) {
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  test('only Node-valid textual addresses are classified; anything else is not public', () => {
    for (const odd of [
      '127.1',
      '0x7f000001',
      '2130706433',
      '017700000001',
      '8.8.8',
      '',
      'example.com',
      '8.8.8.8 ',
      '[::1]',
    ])
      assert.equal(isPublicAddress(odd), false, JSON.stringify(odd));
  });

  test('a pinned or resolved address in an embedding form is refused at delivery', async () => {
    const policy: ExportPolicy = { allowedHosts: ['hooks.example.com'], allowPrivateNetworks: false, resolve: {} };
    for (const address of ['::127.0.0.1', '::ffff:0:10.0.0.1', '::8.8.8.8', '::ffff:0:8.8.8.8']) {
      await assert.rejects(
        resolveDeliveryAddress(policy, 'hooks.example.com', async () => [address]),
        (err: any) => err.code === 'address_not_allowed',
        address,
      );
      await assert.rejects(
        resolveDeliveryAddress({ ...policy, resolve: { 'hooks.example.com': address } }, 'hooks.example.com'),
        (err: any) => err.code === 'address_not_allowed',
        address,
      );
    }
  });
});
