// Which webhook hosts point into the service's own network. Only the URL's text can be judged:
// Workers offers no DNS lookup before a fetch, so a public name that resolves to a private
// address is not caught here (docs/security.md). Hostnames come from the WHATWG URL parser,
// which already turns every IPv4 spelling (2130706433, 0x7f.1, 0177.0.0.1) into dotted decimal
// and every IPv6 literal into compressed lower-case hex in brackets.

type Ipv4Range = readonly [base: number, prefixLength: number];

const PRIVATE_IPV4: readonly Ipv4Range[] = [
  [0x00000000, 8], // "this network", 0.0.0.0 included
  [0x0a000000, 8], // 10/8
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local, cloud metadata (169.254.169.254)
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
  [0x64400000, 10], // 100.64/10, carrier-grade NAT (provider and overlay networks)
  [0xc0000000, 24], // 192.0.0/24, IETF protocol assignments
  [0xc6120000, 15], // 198.18/15, benchmarking
  [0xe0000000, 4], // 224/4, multicast
  [0xf0000000, 4], // 240/4, reserved, 255.255.255.255 included
];

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function ipv4Number(host: string): number | null {
  const parts = IPV4.exec(host);
  if (!parts) return null;
  return parts.slice(1).reduce((value, octet) => value * 256 + Number(octet), 0);
}

const inIpv4Range = (address: number, [base, prefixLength]: Ipv4Range) =>
  Math.floor(address / 2 ** (32 - prefixLength)) === Math.floor(base / 2 ** (32 - prefixLength));

const isPrivateIpv4 = (address: number) => PRIVATE_IPV4.some((range) => inIpv4Range(address, range));

/** The eight 16-bit groups of a serialised IPv6 literal (without brackets), or null. */
function ipv6Groups(literal: string): number[] | null {
  const halves = literal.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const groups = halves.length === 2 ? [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}

function isPrivateIpv6(groups: number[]): boolean {
  const [first] = groups as [number];
  if ((first & 0xfe00) === 0xfc00) return true; // unique-local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((first & 0xff00) === 0xff00) return true; // multicast ff00::/8
  if (first === 0x64 && groups[1] === 0xff9b && groups[2] === 1) return true; // local-use NAT64 64:ff9b:1::/48, never public
  // ::/96 (::, ::1 and the old IPv4-compatible form), ::ffff:0:0/96 (IPv4-mapped),
  // ::ffff:0:0:0/96 (IPv4-translated) and the NAT64 prefix 64:ff9b::/96 carry an IPv4 address in
  // their last 32 bits; 6to4 (2002::/16) in groups 1 and 2. Judge it.
  const prefix = groups.slice(0, 6);
  const zeros = (list: number[]) => list.every((group) => group === 0);
  const embedsIpv4 =
    zeros(prefix) ||
    (zeros(prefix.slice(0, 5)) && prefix[5] === 0xffff) ||
    (zeros(prefix.slice(0, 4)) && prefix[4] === 0xffff && prefix[5] === 0) ||
    (first === 0x64 && groups[1] === 0xff9b && zeros(prefix.slice(2)));
  if (embedsIpv4 && isPrivateIpv4(groups[6]! * 0x10000 + groups[7]!)) return true;
  return first === 0x2002 && isPrivateIpv4(groups[1]! * 0x10000 + groups[2]!);
}

/**
 * Whether `hostname` (a WHATWG URL's `hostname`) is localhost or an IP literal in a loopback,
 * private, link-local, unique-local, shared (CGNAT), reserved, multicast or unspecified range,
 * IPv6 forms that embed such an IPv4 address included.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const ipv4 = ipv4Number(host);
  if (ipv4 !== null) return isPrivateIpv4(ipv4);
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = ipv6Groups(host.slice(1, -1));
    // The parser lets only valid IPv6 into brackets; should that change, refuse rather than guess.
    return groups === null || isPrivateIpv6(groups);
  }
  return false;
}
