/**
 * Where a webhook may be sent. Production: `https` only, and every address the host resolves to
 * must be public (no loopback, private, link-local, CGNAT, multicast, reserved or cloud metadata
 * address). The sandbox also allows `http` and loopback, so that partners can test a handler on
 * their own machine, but never private or metadata addresses. Checked at registration and again
 * at every delivery through `pinnedLookup`, which hands the HTTP client the checked address, so a
 * DNS answer that changes between the check and the connection (rebinding) cannot slip through.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ValidationFailed } from '../errors';

export type UrlPolicy = 'production' | 'sandbox';

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['fd00:ec2::', 32],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Why the address may not receive webhooks under the policy, or null when it may. */
export function addressProblem(address: string, policy: UrlPolicy): string | null {
  const mapped = mappedIpv4(address);
  if (mapped) return addressProblem(mapped, policy);
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(address, family)) return policy === 'sandbox' ? null : `loopback address ${address}`;
  if (NON_PUBLIC.check(address, family)) return `non-public address ${address}`;
  return null;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:xxxx:xxxx), judged as that IPv4 address. */
function mappedIpv4(address: string): string | null {
  const match = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why the URL may not receive webhooks (scheme, credentials), or null. Does not resolve. */
export function urlProblem(url: URL, policy: UrlPolicy): string | null {
  if (url.protocol !== 'https:' && !(policy === 'sandbox' && url.protocol === 'http:')) {
    return policy === 'production' ? 'the URL must use https' : 'the URL must use http or https';
  }
  if (url.username || url.password) return 'the URL must not hold credentials';
  return null;
}

/** Registration: the URL's scheme and every address of its host, or 400 webhook_url_refused. */
export async function assertDeliverableUrl(text: string, policy: UrlPolicy): Promise<void> {
  const url = new URL(text);
  const problem = urlProblem(url, policy) ?? (await resolutionProblem(url.hostname, policy));
  if (problem) throw refused(problem);
}

function refused(problem: string): ValidationFailed {
  return new ValidationFailed([`url: ${problem}`], `This URL cannot receive webhooks: ${problem}.`, 'webhook_url_refused');
}

async function resolutionProblem(hostname: string, policy: UrlPolicy): Promise<string | null> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostname);
  } catch {
    return `the host ${hostname} does not resolve`;
  }
  for (const { address } of addresses) {
    const problem = addressProblem(address, policy);
    if (problem) return problem;
  }
  return null;
}

function resolve(hostname: string): Promise<LookupAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare)) return Promise.resolve([{ address: bare, family: isIP(bare) }]);
  return dns.lookup(bare, { all: true, verbatim: true });
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:http that resolves, checks every address, and connects only to a checked one. */
export function pinnedLookup(policy: UrlPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const problem = addressProblem(address, policy);
          if (problem) return callback(Object.assign(new Error(`refused: ${problem}`), { code: 'EADDRREFUSED' }), '');
        }
        const first = addresses[0]!;
        if (options.all) callback(null, [first]);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}
