import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, test } from 'node:test';
import { classifyAddress, parseIPv4, parseIPv6 } from '../../../../crawler/net/ip-ranges.ts';
import type { AddressKind } from '../../../../crawler/net/ip-ranges.ts';

describe('parseIPv4', () => {
  test('parses dotted quads to unsigned 32-bit numbers', () => {
    assert.equal(parseIPv4('0.0.0.0'), 0);
    assert.equal(parseIPv4('127.0.0.1'), 0x7f000001);
    assert.equal(parseIPv4('255.255.255.255'), 0xffffffff);
    assert.equal(parseIPv4('192.168.1.20'), (192 * 2 ** 24) + (168 << 16) + (1 << 8) + 20);
  });

  test('rejects anything that is not exactly four decimal octets', () => {
    for (const text of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1..2.3', '1.2.3.4.', '.1.2.3', '0x7f.0.0.1', '1.2.3.-4', ' 1.2.3.4', '2130706433', '1.2.3.1000']) {
      assert.equal(parseIPv4(text), undefined, text);
    }
  });
});

describe('parseIPv6', () => {
  const groups = (text: string): number[] | undefined => {
    const parsed = parseIPv6(text);
    return parsed === undefined ? undefined : [...parsed];
  };

  test('expands :: and embedded IPv4 tails', () => {
    assert.deepEqual(groups('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(groups('::1'), [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(groups('fe80::1%eth0'), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(groups('2001:db8::8a2e:370:7334'), [0x2001, 0xdb8, 0, 0, 0, 0x8a2e, 0x370, 0x7334]);
    assert.deepEqual(groups('::ffff:192.168.0.1'), [0, 0, 0, 0, 0, 0xffff, 0xc0a8, 0x0001]);
    assert.deepEqual(groups('0:0:0:0:0:ffff:10.0.0.1'), [0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]);
    assert.deepEqual(groups('1:2:3:4:5:6:7::'), [1, 2, 3, 4, 5, 6, 7, 0]);
    assert.deepEqual(groups('ABCD:EF01::'), [0xabcd, 0xef01, 0, 0, 0, 0, 0, 0]);
  });

  test('rejects malformed addresses', () => {
    for (const text of ['', ':', ':1', '1:', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::', 'g::', '1.2.3.4::', '::1.2.3', '1:2:3:4:5:6:7:8::', '::ffff:1.2.3.256']) {
      assert.equal(parseIPv6(text), undefined, text);
    }
  });

  test('agrees with net.isIPv6 on a sample of forms', () => {
    for (const text of ['::', '::1', '1::', 'a:b:c:d:e:f:1:2', '::ffff:1.2.3.4', 'a::b:c', ':::', '1:::2', 'a:b:c:d:e:f:1:2:3']) {
      assert.equal(parseIPv6(text) !== undefined, isIP(text) === 6, text);
    }
  });
});

describe('classifyAddress', () => {
  const cases: [string, AddressKind][] = [
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.63.255.255', 'public'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.0', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.15.255.255', 'public'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.0.0.8', 'ietf-protocol'],
    ['192.0.2.1', 'documentation'],
    ['192.88.99.1', 'reserved'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmark'],
    ['198.19.255.255', 'benchmark'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::2', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['100::1', 'discard'],
    ['2001::1', 'ietf-protocol'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:0808:0808::1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'reserved'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%lo', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'reserved'],
  ];

  for (const [address, kind] of cases) {
    test(`${address} is ${kind}`, () => {
      assert.equal(classifyAddress(address), kind);
    });
  }

  test('returns undefined for things that are not IP literals', () => {
    for (const text of ['localhost', 'example.com', '[::1]', '127.1', '', '::g']) {
      assert.equal(classifyAddress(text), undefined, text);
    }
  });
});
