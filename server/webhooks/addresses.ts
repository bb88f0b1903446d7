// Which addresses a webhook may reach. Whoever can add a webhook can make this server send requests
// (SSRF): to its own loopback services, to the LAN behind it, to a cloud's metadata endpoint. So
// private, loopback and link-local addresses are refused unless the operator sets
// WEBHOOK_ALLOW_PRIVATE=1 (a Mattermost or relay on the LAN, tests); link-local (169.254/16, where
// cloud metadata lives; fe80::/10), unspecified and multicast addresses are refused even then.
// Checked when the webhook is saved (a literal address or a localhost name: a clear 400) and again
// on every connection, on the addresses DNS returned (a name that resolves privately, or rebinds
// after it was saved), and the connection goes to the address that was checked.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

function blockList(ranges: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return list;
}

const NEVER = blockList([
  ['0.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
]);

const PRIVATE = blockList([
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
]);

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address: bare, family: isIP(bare) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why the address may not be reached, or undefined when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  const { address: ip, family } = normalise(address);
  if (NEVER.check(ip, family)) return `${address} is a link-local, unspecified or multicast address; webhooks never go there`;
  if (!allowPrivate && PRIVATE.check(ip, family)) {
    return `${address} is a private or loopback address; set WEBHOOK_ALLOW_PRIVATE=1 on the server to allow webhooks to the local network`;
  }
  return undefined;
}

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * The save-time check of a URL's host: a literal address, or a name that is loopback by definition.
 * Other names are checked when connecting (resolving them here could not stop a rebinding later).
 */
export function refusedHost(hostname: string, allowPrivate: boolean): string | undefined {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (isIP(host)) return refusedAddress(host, allowPrivate);
  if (isLocalhostName(host) && !allowPrivate) return refusedAddress('127.0.0.1', false)?.replace('127.0.0.1', host);
  return undefined;
}

export class RefusedAddressError extends Error {}

/** A dns.lookup for http.request that fails unless every address the name resolves to may be reached. */
export function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.map((a) => refusedAddress(a.address, allowPrivate)).find(Boolean);
      if (refused) return callback(new RefusedAddressError(`${hostname} resolves to ${refused}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new RefusedAddressError(`${hostname} resolves to no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
