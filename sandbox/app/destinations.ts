// The webhook destination policy of a running sandbox: the domain's rules (domain/destinations.ts)
// with this sandbox's own addresses, taken from its server once it listens, and its choice about
// private networks. Checked on the URL's text where a request gives `urls.webhook` (a 400 naming
// the field), and on every address its host resolves to before each delivery (jobs/).
import {
  addressRefusal,
  type DestinationRules,
  hostOf,
  type PrivateNetworks,
  portOf,
  type SelfAddresses,
  urlRefusal,
} from '../domain/destinations.js';
import type { AppContext } from './context.js';
import { invalid, type Rejection } from './outcomes.js';

export type { PrivateNetworks, SelfAddresses } from '../domain/destinations.js';

export interface DestinationPolicy {
  readonly privateNetworks: PrivateNetworks;
  /** Why the URL, as written, may not receive webhooks; undefined when it may (so far as its text shows). */
  refusalOfUrl(url: string): string | undefined;
  /** Why `address` (which `host` resolved to), on `port`, may not receive a webhook; undefined when it may. */
  refusalOfAddress(address: string, port: number, host: string): string | undefined;
}

/**
 * The policy; `self` gives the sandbox's own addresses once its server listens (undefined before:
 * a request cannot arrive, nor a delivery leave, before then).
 */
export function destinationPolicy(options: {
  privateNetworks?: PrivateNetworks;
  self?: () => SelfAddresses | undefined;
}): DestinationPolicy {
  const privateNetworks = options.privateNetworks ?? 'allow';
  const rules = (): DestinationRules => ({ privateNetworks, self: options.self?.() });
  return {
    privateNetworks,
    refusalOfUrl: (url) => urlRefusal(url, rules()),
    refusalOfAddress: (address, port, host) => addressRefusal(address, port, rules(), host),
  };
}

const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * The sandbox's own addresses, from its server's listening address, the host it was asked to listen
 * on and the public URL its links point at; listening on every interface, each of the machine's
 * `interfaces` (on Node, localAddresses() of platform/node.ts) is one.
 */
export function selfAddresses(
  listening: { address: string; port: number },
  also: { host?: string; publicUrl?: string; interfaces: readonly string[] },
): SelfAddresses {
  const endpoints = [{ host: listening.address, port: listening.port }];
  if (also.host !== undefined && !WILDCARDS.has(also.host))
    endpoints.push({ host: also.host.replace(/^\[(.*)\]$/, '$1').toLowerCase(), port: listening.port });
  if (also.publicUrl !== undefined) {
    try {
      const u = new URL(also.publicUrl);
      endpoints.push({ host: hostOf(u), port: portOf(u) });
    } catch {
      // not a URL: links point nowhere else
    }
  }
  const interfaces = WILDCARDS.has(listening.address) ? [...also.interfaces] : [];
  return { port: listening.port, endpoints, interfaces };
}

/** A request that can name a webhook URL, in the context that knows the policy. */
export interface DestinationContext extends AppContext {
  readonly destinations: DestinationPolicy;
}

/** The request's `urls.webhook` refused by the policy: invalid('urls.webhook', why); undefined when it is accepted or absent. */
export function webhookUrlRejection(
  ctx: Pick<DestinationContext, 'destinations'>,
  urls: { webhook?: string } | undefined,
): Rejection | undefined {
  const url = urls?.webhook;
  if (url === undefined) return undefined;
  const why = ctx.destinations.refusalOfUrl(url);
  return why === undefined ? undefined : invalid('urls.webhook', `is refused as a webhook destination: ${why}`);
}
