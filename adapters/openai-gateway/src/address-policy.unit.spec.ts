import { AddressPolicy, refusalMessage } from './address-policy';

describe('AddressPolicy', () => {
  const policy = new AddressPolicy();
  const rangeOf = (address: string) => policy.refusal(address)?.range ?? 'allowed';

  it.each([
    ['8.8.8.8', 'allowed'],
    ['1.1.1.1', 'allowed'],
    ['2606:4700:4700::1111', 'allowed'],
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    // IPv6 forms of IPv4 addresses reach the IPv4 address, and are judged as it.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:8.8.8.8', 'allowed'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'allowed'],
    ['2002:a9fe:a9fe::1', 'linkLocal'],
    ['::7f00:1', 'ipv4Compatible'],
    ['2001::1', 'teredo'],
  ])('%s: %s', (address, expected) => {
    expect(rangeOf(address)).toBe(expected);
  });

  it('allows the networks and addresses an operator names, and no other', () => {
    const allowing = new AddressPolicy(['127.0.0.1', '10.1.0.0/16', 'fd00::/8']);
    expect(allowing.refusal('127.0.0.1')).toBeUndefined();
    expect(allowing.refusal('::ffff:127.0.0.1')).toBeUndefined();
    expect(allowing.refusal('127.0.0.2')).toEqual({ address: '127.0.0.2', range: 'loopback' });
    expect(allowing.refusal('10.1.200.3')).toBeUndefined();
    expect(allowing.refusal('10.2.0.1')).toEqual({ address: '10.2.0.1', range: 'private' });
    expect(allowing.refusal('fd12::1')).toBeUndefined();
    expect(allowing.refusal('169.254.169.254')).toEqual({ address: '169.254.169.254', range: 'linkLocal' });
  });

  it('says what the address is and where an operator allows it', () => {
    expect(refusalMessage({ address: '10.0.0.7', range: 'private' })).toBe(
      "the gateway's address 10.0.0.7 is private: judges call public addresses only; an operator may allow it with TRACELIGHT_GATEWAY_ALLOWED_NETWORKS",
    );
    expect(refusalMessage({ address: '169.254.169.254', range: 'linkLocal' })).toMatch(/^the gateway's address 169\.254\.169\.254 is link-local, the cloud metadata address: /);
  });

  it('tells addresses from host names', () => {
    expect(['127.0.0.1', '::1', 'fe80::1'].map(AddressPolicy.isAddress)).toEqual([true, true, true]);
    expect(['localhost', 'gateway.example.com', '127.0.0.1.nip.io'].map(AddressPolicy.isAddress)).toEqual([false, false, false]);
  });
});
