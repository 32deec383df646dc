// Which addresses a sandbox listens on, and which Host names reach it: loopback is the default;
// anything else must be asked for (`sandbox serve --expose`).
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Is this listen address loopback only (127.0.0.0/8, ::1, localhost)? */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

/** The Host names that reach a server bound to `host`: its address (every interface's for a wildcard), and localhost when loopback is bound. */
export function boundHostNames(host: string): string[] {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  const asHost = (a: string) => (isIP(a) === 6 ? `[${a.toLowerCase()}]` : a.toLowerCase());
  if (bare === '0.0.0.0' || bare === '::' || bare === '') {
    const all = Object.values(networkInterfaces()).flatMap((list) =>
      (list ?? []).map((i) => asHost(i.address.replace(/%.*$/, ''))),
    );
    return [...all, 'localhost'];
  }
  return isLoopback(bare) ? [asHost(bare), 'localhost', '127.0.0.1', '[::1]'] : [asHost(bare)];
}

/**
 * The host part of a Host header (`host[:port]`), lower case, without the port (IPv6 keeps its
 * brackets); '' when the header is not of that form (`[::1]evil.example` is not `[::1]`).
 */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d*)?$/.exec(h);
  return m ? m[1] : '';
}
