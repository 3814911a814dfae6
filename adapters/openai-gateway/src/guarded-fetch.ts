// A fetch for judge calls whose connections go only where the AddressPolicy allows: the address is
// checked when the socket is about to connect, after DNS resolution, so that a name that resolves to a
// public address when the endpoint is set and to a private one later (DNS rebinding), or a redirect to
// one, is refused all the same.
import * as dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { AddressPolicy, type Refusal, refusalMessage } from './address-policy';

/** A connection refused by the policy: what failureOf looks for among a fetch failure's causes. */
export class GatewayAddressRefused extends Error {
  readonly code = 'ETRACELIGHT_ADDRESS_REFUSED';
  constructor(readonly refusal: Refusal) {
    super(refusalMessage(refusal));
  }
}

/** dns.lookup's shape with every address asked for: the resolver a test may replace. */
export type Resolve = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect that resolves every address of the name and keeps those the policy allows:
 * the socket connects only to an address checked here. A name with none allowed fails with the first
 * refusal. (Node asks for all addresses when it tries them in turn, autoSelectFamily, and for one otherwise.)
 */
const guardedLookup =
  (policy: AddressPolicy, resolve: Resolve) =>
  (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = addresses.filter((a) => policy.refusal(a.address) === undefined);
      const first = addresses[0];
      if (allowed.length === 0) {
        const refused = first === undefined ? undefined : policy.refusal(first.address);
        const error = refused === undefined ? Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }) : new GatewayAddressRefused(refused);
        return callback(error, []);
      }
      if ((options as { all?: boolean }).all === true) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };

export interface GuardedFetch {
  readonly fetch: typeof undiciFetch;
  close(): Promise<void>;
}

/**
 * undici's fetch over an Agent whose every connection is checked: a literal address before it is
 * dialled (Node does not look an IP literal up), a name at its resolution.
 */
export const guardedFetch = (policy: AddressPolicy, resolve: Resolve = dns.lookup as unknown as Resolve): GuardedFetch => {
  const connect = buildConnector({ lookup: guardedLookup(policy, resolve) } as buildConnector.BuildOptions);
  const agent = new Agent({
    connect: (options, callback) => {
      const refused = AddressPolicy.isAddress(options.hostname) ? policy.refusal(options.hostname) : undefined;
      if (refused !== undefined) return callback(new GatewayAddressRefused(refused), null);
      return connect(options, callback);
    },
  });
  return {
    fetch: ((input, init) => undiciFetch(input, { ...init, dispatcher: agent })) as typeof undiciFetch,
    close: () => agent.close(),
  };
};
