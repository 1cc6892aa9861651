// Where a webhook may go: the destination policy's rules, on a URL as written (at creation) and on
// an address its host resolved to (at delivery). Pure: the caller gives the sandbox's own addresses
// and whether private networks are allowed, and resolves host names (jobs/webhook-deliverer.ts).
//
// Always refused: another scheme than http and https, credentials in the URL, the sandbox's own
// address, cloud metadata services (by name and by address), link-local, multicast and reserved
// addresses. Refused when private networks are denied: loopback (localhost), the unspecified
// address (0.0.0.0 reaches the local host), RFC 1918, shared (CGNAT) and unique-local addresses.

export type PrivateNetworks = 'allow' | 'deny';

/** What reaches the sandbox itself: a webhook must never be sent there. */
export interface SelfAddresses {
  /** The port it listens on: loopback and the unspecified address on it are the sandbox. */
  port: number;
  /** Host names and addresses with their ports that reach it (its listening address, its public URL's). */
  endpoints: Array<{ host: string; port: number }>;
  /** The local interfaces' addresses when it listens on every interface (each, on its port, is the sandbox). */
  interfaces: string[];
}

export interface DestinationRules {
  privateNetworks: PrivateNetworks;
  /** Unknown before the server listens (nothing is sent before it does). */
  self: SelfAddresses | undefined;
}

export type AddressKind =
  | 'public'
  | 'private'
  | 'loopback'
  | 'unspecified'
  | 'link-local'
  | 'metadata'
  | 'multicast'
  | 'reserved';

/** Host names of cloud metadata services (GCP, AWS, Tencent, Oracle and the bare names some resolvers search). */
export const METADATA_HOSTS: ReadonlySet<string> = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.oraclecloud.com',
]);

/**
 * Metadata addresses: AWS, GCP, Azure and Oracle (169.254.169.254), AWS ECS and EKS (169.254.170.2,
 * 169.254.170.23), AWS over IPv6 (fd00:ec2::254, fd00:ec2::23), Alibaba (100.100.100.200), Azure's
 * WireServer (168.63.129.16).
 */
const METADATA_ADDRESSES = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  '168.63.129.16',
  'fd00:ec2::254',
  'fd00:ec2::23',
];

// ---------------------------------------------------------------------------------------------
// Addresses as bytes

function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

function ipv6Bytes(text: string): number[] | undefined {
  if (!/^[0-9a-f:.]+$/i.test(text) || text.split('::').length > 2) return undefined;
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = ipv4Bytes(piece);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(Number.parseInt(piece, 16));
      else return undefined;
    }
    return out;
  };
  const left = groups(head);
  const right = groups(tail);
  if (!left || !right) return undefined;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array<number>(tail === undefined ? 0 : missing).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** An IP address as bytes (4 or 16), or undefined when `text` is not one. Brackets are allowed around IPv6. */
export function addressBytes(text: string): number[] | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return ipv4Bytes(bare) ?? ipv6Bytes(bare);
}

type Range = { bytes: number[]; bits: number; kind: AddressKind };

const range = (cidr: string, kind: AddressKind): Range => {
  const [address, bits] = cidr.split('/');
  return { bytes: addressBytes(address!)!, bits: Number(bits), kind };
};

const within = (bytes: number[], r: Range) => {
  if (bytes.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const mask = r.bits - bit >= 8 ? 0xff : (0xff << (8 - (r.bits - bit))) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (r.bytes[bit / 8]! & mask)) return false;
  }
  return true;
};

/** The first range that holds an address decides its kind (the narrower ones come first). */
const RANGES: Range[] = [
  ...METADATA_ADDRESSES.map((a) => range(`${a}/${a.includes(':') ? 128 : 32}`, 'metadata')),
  range('0.0.0.0/8', 'unspecified'),
  range('127.0.0.0/8', 'loopback'),
  range('10.0.0.0/8', 'private'),
  range('172.16.0.0/12', 'private'),
  range('192.168.0.0/16', 'private'),
  range('100.64.0.0/10', 'private'),
  range('198.18.0.0/15', 'private'),
  range('169.254.0.0/16', 'link-local'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'reserved'),
  range('198.51.100.0/24', 'reserved'),
  range('203.0.113.0/24', 'reserved'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::/96', 'reserved'),
  range('64:ff9b:1::/48', 'private'),
  range('2001::/32', 'reserved'),
  range('2001:db8::/32', 'reserved'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'),
  range('fc00::/7', 'private'),
  range('ff00::/8', 'multicast'),
];

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIpv4(bytes: number[]): number[] | undefined {
  if (bytes.length !== 16) return undefined;
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zeros(0, 12) && !zeros(12, 15)) return bytes.slice(12); // ::a.b.c.d (not :: nor ::1)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return bytes.slice(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return undefined;
}

/** What kind of address `text` is (an IPv6 address that carries an IPv4 one is that one's kind); undefined when it is not an address. */
export function addressKind(text: string): AddressKind | undefined {
  const bytes = addressBytes(text);
  if (!bytes) return undefined;
  const embedded = embeddedIpv4(bytes);
  const checked = embedded ?? bytes;
  return RANGES.find((r) => within(checked, r))?.kind ?? 'public';
}

/** The same address however written (`::ffff:127.0.0.1` and `127.0.0.1`, `[::1]` and `0:0::1`). */
export function sameAddress(a: string, b: string): boolean {
  const x = addressBytes(a);
  const y = addressBytes(b);
  if (!x || !y) return false;
  const [p, q] = [embeddedIpv4(x) ?? x, embeddedIpv4(y) ?? y];
  return p.length === q.length && p.every((byte, i) => byte === q[i]);
}

// ---------------------------------------------------------------------------------------------
// The rules

/** `localhost` and the names under it (RFC 6761): always the loopback address. */
export const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** A URL's host as the rules compare it: lower case, without IPv6 brackets or the root's trailing dot. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');

/** A URL's port, the scheme's default when it gives none. */
export const portOf = (url: URL) => (url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

const DENIED_PRIVATE = 'webhooks to private networks are refused here (--webhook-private-networks deny)';

const KIND_REFUSALS: Partial<Record<AddressKind, string>> = {
  metadata: 'a cloud metadata address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address, not a host',
  reserved: 'a reserved address, not a host on the internet',
};
const PRIVATE_KINDS: Partial<Record<AddressKind, string>> = {
  loopback: 'a loopback address',
  unspecified: 'the unspecified address (this host)',
  private: 'a private network address',
};

/** Whether `host` (an address or a name) on `port` is the sandbox itself. */
function isSelf(host: string, port: number, kind: AddressKind | 'localhost' | undefined, self: SelfAddresses) {
  if (port === self.port && (kind === 'loopback' || kind === 'unspecified' || kind === 'localhost')) return true;
  if (port === self.port && self.interfaces.some((a) => sameAddress(a, host))) return true;
  return self.endpoints.some((e) => e.port === port && (e.host === host || sameAddress(e.host, host)));
}

/**
 * Why an address (`address`, on `port`) may not receive a webhook, or undefined when it may. `name`:
 * the host name it was resolved from, for the message.
 */
export function addressRefusal(
  address: string,
  port: number,
  rules: DestinationRules,
  name?: string,
): string | undefined {
  const kind = addressKind(address) ?? 'reserved';
  const said = (phrase: string) =>
    name !== undefined && name !== address ? `${name} resolves to ${address}, ${phrase}` : `${address} is ${phrase}`;
  if (rules.self && isSelf(address, port, kind, rules.self)) return said(`this sandbox's own address (port ${port})`);
  const always = KIND_REFUSALS[kind];
  if (always) return said(always);
  const privately = PRIVATE_KINDS[kind];
  if (privately && rules.privateNetworks === 'deny') return said(`${privately}: ${DENIED_PRIVATE}`);
  return undefined;
}

/**
 * Why a webhook URL, as written, is refused, or undefined. Only its text: the scheme, credentials,
 * literal addresses, `localhost`, metadata host names and the sandbox's own address; what a name
 * resolves to is checked at delivery (addressRefusal).
 */
export function urlRefusal(text: string, rules: DestinationRules): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be an http or https URL, not ${url.protocol.slice(0, -1)}`;
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  const host = hostOf(url);
  if (host === '') return 'has no host';
  const port = portOf(url);
  if (METADATA_HOSTS.has(host)) return `${host} is a cloud metadata service`;
  if (addressBytes(host)) return addressRefusal(host, port, rules);
  if (isLocalhostName(host)) {
    if (rules.self && isSelf(host, port, 'localhost', rules.self))
      return `${host}:${port} is this sandbox's own address`;
    if (rules.privateNetworks === 'deny') return `${host} is the loopback address: ${DENIED_PRIVATE}`;
    return undefined;
  }
  if (rules.self && isSelf(host, port, undefined, rules.self)) return `${host}:${port} is this sandbox's own address`;
  return undefined;
}
