/**
 * The source address under which the token endpoint counts failed client authentications.
 * It is the connection's address, or the client's address in X-Forwarded-For when the connection
 * comes from a proxy named in TRUST_PROXY (Express's `req.ip`).
 */
import net from 'node:net';

/** What the request log's `sourceAddress` may hold (the contract's pattern, at most 45 characters). */
const ADDRESS_SHAPE = /^[0-9A-Za-z.:%_-]{1,45}$/;

/**
 * The client's address as a request log line shows it: IPv4 as is (also when IPv4-mapped), IPv6
 * whole; `unknown` when there is none, or when what a trusted proxy reported is not an address.
 */
export function clientAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  const shown = mapped ? mapped[1]! : address;
  return ADDRESS_SHAPE.test(shown) ? shown : 'unknown';
}

/**
 * IPv4 as is (also when it arrives IPv4-mapped on a dual-stack socket). IPv6 by its /64 prefix:
 * one host usually holds a whole /64, so counting each of its 2^64 addresses apart would let it
 * try without limit.
 */
export function sourceAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  const bare = address.split('%')[0]!; // a zone id (fe80::1%eth0) names the interface, not the host
  if (!net.isIPv6(bare)) return address;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hexadecimal without leading zeros. */
function ipv6Groups(address: string): string[] {
  const withoutQuad = address.replace(/(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/, (_all, a, b, c, d) => {
    const hex = (high: string, low: string) => ((Number(high) << 8) | Number(low)).toString(16);
    return `${hex(a, b)}:${hex(c, d)}`;
  });
  const [head = '', tail] = withoutQuad.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
