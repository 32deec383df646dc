// The embedded sandbox's connection without a socket (issue 31): the built-in profile's server
// runs in the CLI's own process, so the client reaches it through a pair of in-memory streams
// instead of a loopback TCP connection. Both ends are Node's own HTTP code, as over TCP: the client
// writes the same request bytes, the server's parser reads them and runs the same handler (its
// journal, its log line), and the answer's bytes come back the same way. What this saves is the
// listen (Node loads cluster, child_process, dgram and dns for it, about a tenth of a request's
// CPU) and the loopback round trips.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** The few socket methods node:http calls on a connection (keep-alive, timeouts, Nagle): no-ops here. */
function asSocket(side: Duplex): Duplex {
  const s = side as Duplex & Record<string, unknown>;
  const self = () => s;
  s.setKeepAlive = self;
  s.setNoDelay = self;
  s.setTimeout = self;
  s.ref = self;
  s.unref = self;
  s.remoteAddress = '127.0.0.1';
  s.remoteFamily = 'IPv4';
  s.localAddress = '127.0.0.1';
  s.address = () => ({ address: '127.0.0.1', family: 'IPv4', port: 0 });
  return s;
}

/** A new connection to `server` (which need not listen): the client's end of it. */
export function connectInProcess(server: Server): Duplex {
  const [client, served] = process.getBuiltinModule('node:stream').duplexPair();
  server.emit('connection', asSocket(served));
  return asSocket(client);
}
