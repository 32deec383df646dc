// Network routing decided in-process (src/api/network.ts): the proxy a request takes and why,
// NO_PROXY entries as curl reads them, loopback, --resolve pins and the proxy's credentials.
// The same end to end through a real proxy: test/network/network.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { certificateProblem, parsePins, pinFor, proxyAuthorization, routeFor } from '../../src/api/network.js';

const P = { HTTPS_PROXY: 'http://proxy.example:3128', HTTP_PROXY: 'http://proxy.example:8080' };
const route = (url: string, env: Record<string, string>) => routeFor(new URL(url), env);
const via = (url: string, env: Record<string, string>) => route(url, env).shown ?? 'direct';

describe('routeFor: why a request goes where it goes', () => {
  it('names the setting that decided, in each case', () => {
    expect(route('https://api.example.com', {}).why).toBe('no proxy set (HTTPS_PROXY, HTTP_PROXY)');
    expect(route('https://api.example.com', P).why).toBe('HTTPS_PROXY');
    expect(route('http://api.example.com', P).why).toBe('HTTP_PROXY');
    expect(route('https://localhost:8443', P).why).toBe('localhost is loopback, never proxied (HTTPS_PROXY ignored)');
    expect(route('https://api.example.com', { ...P, NO_PROXY: 'x.org,  example.com' }).why).toBe(
      'NO_PROXY entry "example.com" names api.example.com',
    );
    expect(route('https://api.example.com', { ...P, no_proxy: 'example.com' }).why).toBe(
      'no_proxy entry "example.com" names api.example.com',
    );
  });
  it('a blank variable is not set; the lower-case one is read first; ALL_PROXY last', () => {
    expect(via('https://a.example', { https_proxy: '  ', HTTPS_PROXY: 'http://upper:2' })).toBe('http://upper:2');
    expect(via('https://a.example', { HTTP_PROXY: 'http://h:1' })).toBe('direct');
    expect(via('http://a.example', { HTTPS_PROXY: 'http://s:1' })).toBe('direct');
    expect(via('http://a.example', { http_proxy: 'http://lower:1', HTTP_PROXY: 'http://upper:2' })).toBe(
      'http://lower:1',
    );
    expect(via('http://a.example', { all_proxy: 'http://all:3', ALL_PROXY: 'http://ALL:4' })).toBe('http://all:3');
    expect(route('https://a.example', { ALL_PROXY: 'http://all:3' }).why).toBe('ALL_PROXY');
  });
  it('a proxy without a scheme is http://; one that is not a URL or not http:// is refused, naming the variable', () => {
    expect(via('https://a.example', { HTTPS_PROXY: 'proxy.example:3128' })).toBe('http://proxy.example:3128');
    expect(via('https://a.example', { HTTPS_PROXY: 'HTTP://Proxy.Example:3128' })).toBe('http://proxy.example:3128');
    // A scheme is only one at the start: a "://" further on is part of a scheme-less proxy's URL.
    expect(via('https://a.example', { HTTPS_PROXY: 'proxy.example:3128/?next=http://x' })).toBe(
      'http://proxy.example:3128',
    );
    const refused = (value: string) => {
      try {
        route('https://a.example', { HTTPS_PROXY: value });
      } catch (e) {
        return e as Error & { code?: string; setting?: string };
      }
      throw new Error('not refused');
    };
    const bad = refused('http://[bad');
    expect(bad.message).toBe('HTTPS_PROXY is not a URL; set it like http://proxy.example.com:3128.');
    expect([bad.code, bad.setting]).toEqual(['BOOKDIST_PROXY_URL', 'HTTPS_PROXY']);
    const tls = refused('https://user:secret@proxy.example:443');
    expect(tls.message).toBe(
      'HTTPS_PROXY uses https:// (https://proxy.example); bookdist talks to proxies over http:// only (HTTPS requests are tunnelled with CONNECT).',
    );
    expect([tls.code, tls.setting]).toEqual(['BOOKDIST_PROXY_URL', 'HTTPS_PROXY']);
  });
  it('loopback in every spelling is never proxied; names that only look like it are', () => {
    for (const url of [
      'https://LOCALHOST',
      'https://localhost.',
      'https://api.localhost',
      'https://127.0.0.1',
      'https://127.255.255.254:8443',
      'https://[::1]',
      'https://[::ffff:127.0.0.1]',
      'https://[::ffff:127.1.2.3]',
    ])
      expect(via(url, P), url).toBe('direct');
    for (const url of [
      'https://mylocalhost',
      'https://localhost.example.com',
      'https://128.0.0.1',
      'https://[::2]',
      'https://[::ffff:128.0.0.1]',
      'https://[1::ffff:7f00:1]',
      'https://127.0.0.1.example.com',
    ])
      expect(via(url, P), url).toBe('http://proxy.example:3128');
  });
});

describe('NO_PROXY entries', () => {
  const np = (url: string, NO_PROXY: string) => via(url, { ...P, NO_PROXY });
  it('names, domains and their subdomains; the port given or the scheme default', () => {
    expect(np('https://api.example.com', 'EXAMPLE.COM.')).toBe('direct');
    expect(np('https://api.example.com.', 'example.com')).toBe('direct');
    expect(np('https://example.com', '*.example.com')).toBe('direct');
    expect(np('https://api.example.com', '.')).toBe('http://proxy.example:3128');
    expect(np('https://api.example.com', ' , ,')).toBe('http://proxy.example:3128');
    expect(np('https://api.example.com', 'api.example.com:443')).toBe('direct');
    expect(np('http://api.example.com', 'api.example.com:80')).toBe('direct');
    expect(np('http://api.example.com', 'api.example.com:443')).toBe('http://proxy.example:8080');
    expect(np('https://api.example.com:8443', 'api.example.com:8443')).toBe('direct');
    expect(np('https://[::1]:8080', '[::1]:8080')).toBe('direct');
    expect(np('https://[2001:db8::7]:8080', '[2001:db8::7]:8080')).toBe('direct');
    expect(np('https://[2001:db8::7]', '[2001:db8::7]')).toBe('direct');
    expect(np('https://[2001:db8::7]:8443', '[2001:db8::7]:8080')).toBe('http://proxy.example:3128');
    // An IPv6 address without brackets has no port, even when its groups look like one.
    expect(np('https://[2001:db8::1]', '2001:0db8::1')).toBe('direct');
    expect(np('https://[2001:db8::1:80]', '2001:db8::1:80')).toBe('direct');
    expect(np('https://api.example.com', '..example.com')).toBe('direct');
  });
  it('an entry that is not a name, address or range matches nothing, and breaks nothing', () => {
    expect(np('https://api.example.com', 'api.example.com:443x')).toBe('http://proxy.example:3128');
    expect(np('https://10.1.2.3', 'x10.0.0.0/8')).toBe('http://proxy.example:3128');
    expect(np('https://10.1.2.3', '10.0.0.0/8x')).toBe('http://proxy.example:3128');
    expect(np('https://10.1.2.3', '10.1.2/24')).toBe('http://proxy.example:3128');
    expect(np('https://api.example.com..', '.')).toBe('http://proxy.example:3128');
  });
  it('IP addresses and CIDR ranges, IPv4 and IPv6, never a name', () => {
    expect(np('https://10.1.2.3', '10.1.2.4')).toBe('http://proxy.example:3128');
    expect(np('https://10.1.2.3', '10.1.2.0/24')).toBe('direct');
    expect(np('https://10.1.3.3', '10.1.2.0/24')).toBe('http://proxy.example:3128');
    expect(np('https://10.1.2.3', '10.1.2.3/40')).toBe('direct');
    expect(np('https://10.1.2.3', '0.0.0.0/0')).toBe('direct');
    expect(np('https://api.example.com', '10.0.0.0/8')).toBe('http://proxy.example:3128');
    expect(np('https://[2001:db8::1]', '10.0.0.0/8')).toBe('http://proxy.example:3128');
    expect(np('https://10.1.2.3', '2001:db8::/32')).toBe('http://proxy.example:3128');
    expect(np('https://[2001:db9::1]', '2001:db8::/32')).toBe('http://proxy.example:3128');
    expect(np('https://[2001:db8:0:0:0:0:0:1]', '2001:db8::1')).toBe('direct');
    expect(np('https://[2001:db8::1:0]', '2001:db8::1')).toBe('http://proxy.example:3128');
    expect(np('https://[::ffff:10.1.2.3]', '::ffff:10.1.0.0/112')).toBe('direct');
    expect(np('https://[::ffff:10.2.2.3]', '::ffff:10.1.0.0/112')).toBe('http://proxy.example:3128');
    expect(np('https://[fe80::1]', 'fe80::/10')).toBe('direct');
    expect(np('https://[2001:db8:1::1]', '2001:db8::/32')).toBe('direct');
    expect(np('https://[::ffff:10.10.100.70]', '::ffff:10.10.100.64/122')).toBe('direct');
    expect(np('https://[::ffff:10.10.100.70]', '::ffff:10.10.100.0/122')).toBe('http://proxy.example:3128');
    // An IPv6 host is never in an IPv4 range (::a01:203 holds the bits of 10.1.2.3), a name never in any range.
    expect(np('https://[::a01:203]', '10.1.2.0/24')).toBe('http://proxy.example:3128');
    expect(np('https://api.example.com', '::/0')).toBe('http://proxy.example:3128');
  });
});

describe('--resolve pins', () => {
  it('each entry must be HOST:PORT:ADDRESS with a port from 1 to 65535 and an IP address', () => {
    const problem = (text: string) =>
      'problem' in parsePins(text) ? (parsePins(text) as { problem: string }).problem : '';
    expect(problem('a.example:443:10.0.0.1')).toBe('');
    expect(problem('a.example:65535:10.0.0.1')).toBe('');
    expect(problem('a.example:1:10.0.0.1')).toBe('');
    for (const bad of [
      'a.example:0:10.0.0.1',
      'a.example:65536:10.0.0.1',
      'a.example:443:999.0.0.1',
      'a.example:443',
      'a.example:443:[10.0.0.1',
      'a.example:443:10.0.0.1:1',
      'x:a.example:443:10.0.0.1',
    ])
      expect(problem(bad), bad).toBe(
        `"${bad}" is not HOST:PORT:ADDRESS (e.g. api.example.com:443:203.0.113.7, an IPv6 address in brackets: api.example.com:443:[2001:db8::7])`,
      );
    expect(problem('a.example:443:10.0.0.1 b.example:443:nope')).toContain('"b.example:443:nope"');
    expect(parsePins('')).toEqual({ pins: [] });
  });
  it('a pin is found by the name as a URL gives it: any case, a trailing dot, IPv6 in brackets', () => {
    const parsed = parsePins('A.Example.:443:10.0.0.1,[::1]:8443:10.0.0.2');
    expect('problem' in parsed).toBe(true);
    const { pins } = parsePins('A.Example.:443:10.0.0.1') as {
      pins: { host: string; port: number; address: string }[];
    };
    expect(pins).toEqual([{ host: 'a.example', port: 443, address: '10.0.0.1' }]);
    expect(pinFor(pins, 'a.example.', 443)?.address).toBe('10.0.0.1');
    expect(pinFor(pins, 'A.EXAMPLE', 443)?.address).toBe('10.0.0.1');
    expect(pinFor(undefined, 'a.example', 443)).toBeUndefined();
  });
});

describe('proxyAuthorization', () => {
  it('Basic with the decoded user and password; none without either', () => {
    const basic = (u: string) => proxyAuthorization(new URL(u));
    expect(basic('http://proxy.example:3128')).toBeUndefined();
    expect(basic('http://us%40er:p%3Ass@proxy.example:3128')).toBe(
      `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    );
    expect(basic('http://user@proxy.example:3128')).toBe(`Basic ${Buffer.from('user:').toString('base64')}`);
    expect(basic('http://:pw@proxy.example:3128')).toBe(`Basic ${Buffer.from(':pw').toString('base64')}`);
  });
});

describe('certificateProblem: what each TLS failure tells the user', () => {
  it('names the problem of each certificate and TLS error code, and nothing for other codes', () => {
    const issuer = 'its issuer is not a trusted certificate authority';
    const noTls = 'the server did not answer TLS (is it an http:// URL?)';
    const noVersion = 'the server and bookdist share no TLS version';
    const said: Record<string, string> = {
      UNABLE_TO_VERIFY_LEAF_SIGNATURE: issuer,
      UNABLE_TO_GET_ISSUER_CERT: issuer,
      UNABLE_TO_GET_ISSUER_CERT_LOCALLY: issuer,
      SELF_SIGNED_CERT_IN_CHAIN: 'it is signed by a certificate authority that is not trusted',
      DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed and not trusted',
      CERT_UNTRUSTED: 'it is not trusted',
      CERT_HAS_EXPIRED: 'it has expired',
      CERT_NOT_YET_VALID: "it is not valid yet (check this machine's clock)",
      CERT_REVOKED: 'it has been revoked',
      CERT_SIGNATURE_FAILURE: 'its signature does not verify',
      CERT_CHAIN_TOO_LONG: 'its chain is too long',
      INVALID_CA: 'a certificate in its chain is not a valid CA',
      INVALID_PURPOSE: 'it is not meant for a server',
      HOSTNAME_MISMATCH: 'it does not name this host',
      ERR_TLS_CERT_ALTNAME_INVALID: 'it does not name this host',
      ERR_SSL_WRONG_VERSION_NUMBER: noTls,
      ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION: noVersion,
      ERR_SSL_UNSUPPORTED_PROTOCOL: noVersion,
      ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'the TLS handshake failed',
      ERR_SSL_PACKET_LENGTH_TOO_LONG: noTls,
    };
    for (const [code, text] of Object.entries(said)) expect(certificateProblem(code), code).toBe(text);
    for (const code of ['ECONNREFUSED', 'EPROTO', 'ERR_SSL_OTHER', '', 'toString', 'constructor'])
      expect(certificateProblem(code), code).toBeUndefined();
  });
});
