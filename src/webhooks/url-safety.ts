/**
 * Where a webhook may be sent (issue 23 items 6 and 7). Production: `https` on port 443 or 8443,
 * and every address the host resolves to must be public (no loopback, private, link-local, CGNAT,
 * multicast, reserved, 6to4, Teredo, site-local, NAT64 or cloud metadata address). The sandbox also
 * allows `http` and ports 80 and 8080. Loopback is a deployment setting (WEBHOOK_ALLOW_LOOPBACK,
 * sandbox only, on for `make start`): for a partner testing a handler on its own machine, never for
 * a hosted sandbox, whose loopback is the service's own host; even then never to the service's own
 * ports (API, metrics, database). Checked at registration and again at every delivery through
 * `pinnedLookup`, which hands the HTTP client the checked address (DNS rebinding).
 *
 * Every refusal answers the same error whatever the host resolves to (or whether it resolves):
 * a different message per address would make the service a scanner of its own network.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config';
import { ValidationFailed } from '../errors';

export interface UrlPolicy {
  environment: 'production' | 'sandbox';
  allowLoopback: boolean;
  /** The service's own ports: never a webhook's, whatever its host. */
  ownPorts: ReadonlySet<number>;
}

/** Ports a webhook may use on a host that is not loopback. */
const PORTS = { production: new Set([443, 8443]), sandbox: new Set([80, 443, 8080, 8443]) };

export function urlPolicy(config: Config): UrlPolicy {
  const ownPorts = new Set([config.PORT, config.METRICS_PORT, config.EMBEDDED_DB_PORT].filter((port) => port > 0));
  const databasePort = config.DATABASE_URL ? portOfDatabase(config.DATABASE_URL) : undefined;
  if (databasePort) ownPorts.add(databasePort);
  return { environment: config.ENVIRONMENT, allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, ownPorts };
}

function portOfDatabase(url: string): number | undefined {
  try {
    return Number(new URL(url).port || 5432);
  } catch {
    return undefined;
  }
}

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // IPv4-compatible (deprecated) addresses, `::` and `::1` among them: [::127.0.0.1] is ::7f00:1.
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo (2001::/32) and 6to4 (2002::/16) carry an IPv4 address that a relay may reach.
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, still routed inside some networks).
  ['fec0::', 10],
  ['ff00::', 8],
  ['fd00:ec2::', 32],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether the address may receive webhooks under the policy. */
export function addressAllowed(address: string, policy: UrlPolicy): boolean {
  const mapped = mappedIpv4(address);
  if (mapped) return addressAllowed(mapped, policy);
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(address, family)) return policy.environment === 'sandbox' && policy.allowLoopback;
  return !NON_PUBLIC.check(address, family);
}

const isLoopback = (address: string): boolean => {
  const mapped = mappedIpv4(address) ?? address;
  return LOOPBACK.check(mapped, isIP(mapped) === 6 ? 'ipv6' : 'ipv4');
};

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d or ::ffff:xxxx:xxxx), judged as that IPv4 address. */
function mappedIpv4(address: string): string | null {
  const match = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** The URL's port, its scheme's default when absent. */
const portOf = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Whether the URL's text may receive webhooks (scheme, credentials, own ports), before any lookup. */
export function urlAllowed(url: URL, policy: UrlPolicy): boolean {
  const schemes = policy.environment === 'production' ? ['https:'] : ['https:', 'http:'];
  return schemes.includes(url.protocol) && !url.username && !url.password && url.hostname !== '' && !policy.ownPorts.has(portOf(url));
}

/** Whether the URL may be connected to at `address` (one of its host's): the address, and its port for a host that is not loopback. */
export function targetAllowed(url: URL, address: string, policy: UrlPolicy): boolean {
  return addressAllowed(address, policy) && (isLoopback(address) || PORTS[policy.environment].has(portOf(url)));
}

/** The one error of every refused URL (the same whatever its host resolves to). */
export function refusedUrl(policy: UrlPolicy): ValidationFailed {
  const rule =
    policy.environment === 'production'
      ? 'url: must be https on port 443 or 8443, with a host whose every address is public'
      : 'url: must be http or https on port 80, 443, 8080 or 8443, with a host whose every address is public' +
        (policy.allowLoopback ? ' (or a loopback address, on any port but the service’s own)' : '');
  return new ValidationFailed([rule], 'This URL cannot receive webhooks here (see Webhooks: addresses).', 'webhook_url_refused');
}

/** The URL parsed, or 400 validation_failed: a text that `format: uri` accepts may still not be a URL a client can use. */
export function parseWebhookUrl(text: string): URL {
  try {
    const url = new URL(text);
    if (url.hostname !== '') return url;
  } catch {
    // reported below
  }
  throw new ValidationFailed(['url: must be an absolute http or https URL with a valid host and port']);
}

/** Registration: the URL's text and every address of its host, or 400 webhook_url_refused. Runs before the write's transaction. */
export async function assertDeliverableUrl(text: string, policy: UrlPolicy): Promise<void> {
  const url = parseWebhookUrl(text);
  if (!urlAllowed(url, policy)) throw refusedUrl(policy);
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(url.hostname);
  } catch {
    throw refusedUrl(policy);
  }
  if (addresses.length === 0 || !addresses.every(({ address }) => targetAllowed(url, address, policy))) throw refusedUrl(policy);
}

function resolve(hostname: string): Promise<LookupAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare)) return Promise.resolve([{ address: bare, family: isIP(bare) }]);
  return dns.lookup(bare, { all: true, verbatim: true });
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** The message of every attempt refused at delivery: never the address a name resolved to. */
export const REFUSED_AT_DELIVERY = 'refused: this URL may not receive webhooks here';

/** The lookup's refusal of a name that resolves to an address the policy forbids: recognised by its class (delivery-http.ts). */
export class RefusedAtDelivery extends Error {
  readonly code = 'EADDRREFUSED';
  constructor() {
    super(REFUSED_AT_DELIVERY);
    this.name = 'RefusedAtDelivery';
  }
}

/** A `lookup` for node:http that resolves, checks every address, and connects only to a checked one. */
export function pinnedLookup(url: URL, policy: UrlPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || !addresses.every(({ address }) => targetAllowed(url, address, policy))) {
          return callback(new RefusedAtDelivery(), '');
        }
        const first = addresses[0]!;
        if (options.all) callback(null, [first]);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}

/** Whether a URL whose host is an address literal may be connected to (such a host never reaches pinnedLookup). */
export function literalAllowed(url: URL, policy: UrlPolicy): boolean {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return urlAllowed(url, policy) && (!isIP(host) || targetAllowed(url, host, policy));
}
