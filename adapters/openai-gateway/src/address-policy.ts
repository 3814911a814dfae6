// Which addresses judges may call: public unicast addresses, and the networks the operator allows. A
// user's gateway endpoint is any URL; without this, it would make the server call its own loopback, the
// cloud's metadata address or the private network it sits in (SSRF).
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The variable that allows networks (packages/config reads it): named in refusals, so that an operator knows where to look. */
export const ALLOW_VARIABLE = 'TRACELIGHT_GATEWAY_ALLOWED_NETWORKS';

/** What a range is called in a refusal. */
const RANGE_WORDS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  uniqueLocal: 'private (unique local)',
  linkLocal: 'link-local',
  carrierGradeNat: 'shared (carrier-grade NAT)',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
  benchmarking: 'reserved (benchmarking)',
  deprecatedSiteLocal: 'private (site-local)',
  ipv4Compatible: 'reserved (IPv4-compatible)',
  teredo: 'a tunnel (Teredo)',
};

/** Addresses cloud providers answer instance metadata (and its credentials) on. */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '169.254.170.2']);

/**
 * The address as routed: an IPv6 address that carries an IPv4 one (IPv4-mapped `::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002:AABB:CCDD::/48`) reaches that IPv4 address, and is judged as it.
 */
const routed = (address: Address): Address => {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const [a, b, c, , , , g, h] = v6.parts as [number, number, number, number, number, number, number, number];
  const range = v6.range();
  if (range === 'rfc6052' && a === 0x64 && b === 0xff9b) return new ipaddr.IPv4([g >> 8, g & 255, h >> 8, h & 255]);
  if (range === '6to4') return new ipaddr.IPv4([b >> 8, b & 255, c >> 8, c & 255]);
  return v6;
};

/** The range an address falls in, as ipaddr.js names it (`unicast` for a public one), IPv4-compatible ones apart. */
const rangeOf = (address: Address): string => {
  if (address.kind() === 'ipv6') {
    const parts = (address as ipaddr.IPv6).parts;
    // ::a.b.c.d (deprecated, RFC 4291 §2.5.5.1): ipaddr.js calls it unicast; no public gateway has one.
    if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1)) return 'ipv4Compatible';
  }
  return address.range();
};

/** Why an address is refused: `127.0.0.1 is loopback`. */
export interface Refusal {
  readonly address: string;
  readonly range: string;
}

export class AddressPolicy {
  private readonly allowed: ReadonlyArray<[Address, number]>;

  /** `allowedNetworks`: CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses, allowed beside public ones. */
  constructor(allowedNetworks: ReadonlyArray<string> = []) {
    this.allowed = allowedNetworks.map((n) => (n.includes('/') ? ipaddr.parseCIDR(n) : ([ipaddr.parse(n), ipaddr.parse(n).kind() === 'ipv4' ? 32 : 128] as [Address, number])));
  }

  /** Whether `text` is an address this policy can read (an IP literal, not a host name). */
  static isAddress(text: string): boolean {
    return ipaddr.isValid(text);
  }

  /** Undefined when judges may call `address` (an IP address as text); else what it is. */
  refusal(address: string): Refusal | undefined {
    let parsed: Address;
    try {
      parsed = ipaddr.parse(address.replace(/%.*$/, '')); // a zone id (fe80::1%eth0) names an interface, not another address
    } catch {
      return { address, range: 'unreadable' };
    }
    const target = routed(parsed);
    if (this.allowed.some(([net, bits]) => target.kind() === net.kind() && target.match(net, bits))) return undefined;
    const range = rangeOf(target);
    return range === 'unicast' ? undefined : { address, range };
  }
}

/** The refusal in words: what the address is, and how an operator allows it. */
export const refusalMessage = ({ address, range }: Refusal): string => {
  const what = RANGE_WORDS[range] ?? range;
  const metadata = METADATA.has(address.toLowerCase()) ? ', the cloud metadata address' : '';
  return `the gateway's address ${address} is ${what}${metadata}: judges call public addresses only; an operator may allow it with ${ALLOW_VARIABLE}`;
};
