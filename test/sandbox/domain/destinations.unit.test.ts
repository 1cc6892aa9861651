// The webhook destination policy's rules (sandbox/domain/destinations.ts): the kind of an address
// (IPv4, IPv6, IPv4 inside IPv6), and why a URL as written, or an address a host resolved to, may
// not receive a webhook: always for metadata, link-local, multicast and reserved addresses and for
// the sandbox's own address; for loopback and private networks only when they are denied.
import { describe, expect, it } from 'vitest';
import {
  addressKind,
  addressRefusal,
  type DestinationRules,
  sameAddress,
  urlRefusal,
} from '../../../sandbox/domain/destinations.js';

const self = { port: 4020, endpoints: [{ host: '127.0.0.1', port: 4020 }], interfaces: [] };
const allow: DestinationRules = { privateNetworks: 'allow', self };
const deny: DestinationRules = { privateNetworks: 'deny', self };

describe('addressKind', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.10.20', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    // IPv4 inside IPv6 is the IPv4 address's kind
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:a00:1::1', 'private'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it('is undefined for what is not an address', () => {
    for (const text of ['1.2.3', '01.2.3.4', '256.1.1.1', 'example.com', '1::2::3', ':::', '12345::'])
      expect(addressKind(text), text).toBeUndefined();
  });

  it('compares addresses however they are written', () => {
    expect(sameAddress('::ffff:127.0.0.1', '127.0.0.1')).toBe(true);
    expect(sameAddress('0:0::1', '[::1]')).toBe(true);
    expect(sameAddress('127.0.0.1', '127.0.0.2')).toBe(false);
  });
});

describe('urlRefusal (a URL as written, at creation)', () => {
  it.each([
    ['ftp://files.example/hook', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['https://user:secret@shop.example/hook', /credentials/],
    ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
    ['http://[fd00:ec2::254]/', /cloud metadata address/],
    ['http://[::ffff:169.254.169.254]/', /cloud metadata address/],
    ['http://2852039166/', /169\.254\.169\.254 is a cloud metadata address/], // decimal, as URL normalizes it
    ['http://metadata.google.internal/computeMetadata/v1/', /metadata\.google\.internal is a cloud metadata service/],
    ['http://Metadata.Google.Internal./', /cloud metadata service/],
    ['http://169.254.1.2:8080/', /link-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://224.0.0.1/', /multicast/],
    ['http://127.0.0.1:4020/api/v2/customers', /this sandbox's own address \(port 4020\)/],
    ['http://127.0.0.53:4020/', /this sandbox's own address/],
    ['http://[::1]:4020/', /this sandbox's own address/],
    ['http://0.0.0.0:4020/', /this sandbox's own address/],
    ['http://localhost:4020/hooks', /localhost:4020 is this sandbox's own address/],
    ['http://api.localhost:4020/', /this sandbox's own address/],
    ['not a url', /absolute URL/],
  ])('refuses %s', (url, why) => {
    expect(urlRefusal(url, allow)).toMatch(why);
    expect(urlRefusal(url, deny)).toMatch(why);
  });

  it.each([
    'https://shop.example/hooks',
    'http://127.0.0.1:3000/webhooks',
    'http://localhost:3000/webhooks',
    'http://[::1]:3000/',
    'http://10.0.0.5/hooks',
    'http://192.168.1.20:8080/hooks',
    'http://8.8.8.8/',
  ])('allows %s (private networks and loopback on other ports allowed)', (url) => {
    expect(urlRefusal(url, allow)).toBeUndefined();
  });

  it('refuses loopback, localhost and private networks when they are denied, not public hosts', () => {
    expect(urlRefusal('http://127.0.0.1:3000/webhooks', deny)).toMatch(
      /127\.0\.0\.1 is a loopback address: .*--webhook-private-networks deny/,
    );
    expect(urlRefusal('http://localhost:3000/webhooks', deny)).toMatch(/loopback/);
    expect(urlRefusal('http://10.0.0.5/hooks', deny)).toMatch(/private network address/);
    expect(urlRefusal('http://[fd12::1]/hooks', deny)).toMatch(/private network address/);
    expect(urlRefusal('http://0.0.0.0:3000/', deny)).toMatch(/unspecified address/);
    expect(urlRefusal('https://shop.example/hooks', deny)).toBeUndefined();
    expect(urlRefusal('http://8.8.8.8/', deny)).toBeUndefined();
  });

  it('knows the sandbox by its public host and port, and by every local address when it listens on all of them', () => {
    const behindProxy: DestinationRules = {
      privateNetworks: 'allow',
      self: {
        port: 4020,
        endpoints: [
          { host: '0.0.0.0', port: 4020 },
          { host: 'sandbox.team.example', port: 443 },
        ],
        interfaces: ['192.168.7.7'],
      },
    };
    expect(urlRefusal('https://sandbox.team.example/api/v2', behindProxy)).toMatch(/own address/);
    expect(urlRefusal('http://sandbox.team.example/api/v2', behindProxy)).toBeUndefined(); // port 80
    expect(urlRefusal('http://192.168.7.7:4020/', behindProxy)).toMatch(/own address/);
    expect(urlRefusal('http://192.168.7.7:3000/', behindProxy)).toBeUndefined();
    // Before the server listens, nothing is the sandbox yet.
    expect(urlRefusal('http://127.0.0.1:4020/', { privateNetworks: 'allow', self: undefined })).toBeUndefined();
  });
});

describe('addressRefusal (what a host resolved to, at delivery)', () => {
  it('names the host and the address it resolved to', () => {
    expect(addressRefusal('169.254.169.254', 80, allow, 'rebind.example')).toBe(
      'rebind.example resolves to 169.254.169.254, a cloud metadata address',
    );
    expect(addressRefusal('127.0.0.1', 4020, allow, 'self.example')).toBe(
      "self.example resolves to 127.0.0.1, this sandbox's own address (port 4020)",
    );
    expect(addressRefusal('10.9.8.7', 443, deny, 'intranet.example')).toMatch(
      /^intranet\.example resolves to 10\.9\.8\.7, a private network address/,
    );
    expect(addressRefusal('10.9.8.7', 443, allow, 'intranet.example')).toBeUndefined();
    expect(addressRefusal('93.184.215.14', 443, deny, 'shop.example')).toBeUndefined();
  });
});
