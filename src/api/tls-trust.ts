// Which certificate authorities an HTTPS connection trusts: Node's roots (NODE_EXTRA_CA_CERTS
// included) plus the CA file (--ca-file), as ever; with a CA file, a connection trusts the file's
// CAs alone first and the whole set only when they do not vouch for the service (issue 31: the
// context of Node's roots plus a CA is about 11M instructions more to make than the CA's alone,
// callgrind of one `book get` over HTTPS, Node 24.21.0). The same certificates are trusted either way.
import type { Socket } from 'node:net';

/** How a connection is handed over: a socket, or the error that kept it from opening. */
export type Done = (err: Error | null, socket?: Socket) => void;

/**
 * Every code Node gives OpenSSL's verification of a certificate chain (X509ErrorCode in Node's
 * crypto_common.cc; UNSPECIFIED for any other). A connection that trusted the CA file alone and
 * failed with one of these is made again trusting Node's roots too (TlsTrust.secure).
 */
const VERIFY_ERRORS = new Set(
  (
    'UNABLE_TO_GET_ISSUER_CERT UNABLE_TO_GET_CRL UNABLE_TO_DECRYPT_CERT_SIGNATURE UNABLE_TO_DECRYPT_CRL_SIGNATURE ' +
    'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY CERT_SIGNATURE_FAILURE CRL_SIGNATURE_FAILURE CERT_NOT_YET_VALID ' +
    'CERT_HAS_EXPIRED CRL_NOT_YET_VALID CRL_HAS_EXPIRED ERROR_IN_CERT_NOT_BEFORE_FIELD ERROR_IN_CERT_NOT_AFTER_FIELD ' +
    'ERROR_IN_CRL_LAST_UPDATE_FIELD ERROR_IN_CRL_NEXT_UPDATE_FIELD OUT_OF_MEM DEPTH_ZERO_SELF_SIGNED_CERT ' +
    'SELF_SIGNED_CERT_IN_CHAIN UNABLE_TO_GET_ISSUER_CERT_LOCALLY UNABLE_TO_VERIFY_LEAF_SIGNATURE CERT_CHAIN_TOO_LONG ' +
    'CERT_REVOKED INVALID_CA PATH_LENGTH_EXCEEDED INVALID_PURPOSE CERT_UNTRUSTED CERT_REJECTED HOSTNAME_MISMATCH UNSPECIFIED'
  ).split(' '),
);

export class TlsTrust {
  /** TLS options of the whole set, and of the CA file alone: each made once. */
  private full?: Record<string, unknown>;
  private caTrust?: Record<string, unknown>;
  /** Set once a connection needed more than the CA file: the later ones trust the whole set at once. */
  private widened = false;
  /** Connections still in their first handshake (not yet the Agent's): close() ends them too. */
  private readonly handshaking = new Set<Socket>();

  /** `ca`: the CA file's PEM; `connectTimeout`: ms allowed a connection to open (TCP). */
  constructor(
    private readonly ca: string | undefined,
    private readonly connectTimeout: number,
  ) {}

  /**
   * TLS options that trust Node's roots (NODE_EXTRA_CA_CERTS included) plus --ca-file. Adding to
   * a default secure context reuses the roots Node already parsed; `ca: [...roots, pem]` would
   * parse every one of Node's few hundred roots again, in every command that gives a CA file.
   */
  private whole(): Record<string, unknown> {
    // Stryker disable next-line ConditionalExpression: equivalent, without a CA file the context made trusts Node's roots only, as no option does (→ true, the file ignored, is killed)
    if (!this.ca) return {};
    // Stryker disable next-line ConditionalExpression: accepted, speed only: the context is made again, with the same CA
    if (this.full) return this.full;
    const tls = process.getBuiltinModule('node:tls');
    const context = tls.createSecureContext();
    const native = (context as unknown as { context?: { addCACert?: (pem: string) => void } }).context;
    // Stryker disable next-line ConditionalExpression,OptionalChaining,StringLiteral,BlockStatement: equivalent, the fallback trusts the same CA beside Node's roots (→ true is killed: transport.test.ts)
    if (typeof native?.addCACert === 'function') {
      native.addCACert(this.ca);
      return (this.full = { secureContext: context });
    }
    return (this.full = { ca: [...tls.getCACertificates('default'), this.ca] });
  }

  /**
   * The CA file's certificates alone. A connection tries them first: a context of Node's roots
   * plus the CA costs about 11M instructions more to make (callgrind, Node 24.21.0), and a service
   * given a CA file is almost always signed by that CA. A certificate trusted by them is trusted
   * by the whole set; one that is not gets a new connection trusting the whole set (secure()).
   */
  private caOnly(): Record<string, unknown> {
    return (this.caTrust ??= {
      secureContext: process.getBuiltinModule('node:tls').createSecureContext({ ca: [this.ca!] }),
    });
  }

  /**
   * Open a TLS connection with `open` (a socket, or an error before TLS: a refused proxy...)
   * trusting Node's roots plus --ca-file, as whole() says, in two steps when there is a CA
   * file: the first connection trusts the file's CAs alone and is handed on only once its
   * certificate verified (so no byte of a request is written to it before); if it did not verify,
   * whatever the reason OpenSSL gives (the last error it met on a path that may end at one of
   * Node's roots), a new connection (a new tunnel through a proxy) trusts the whole set, as every
   * one did before, and its outcome is the request's: its error is the one a user saw before.
   * The check of the host name is not repeated: it fails alike whatever the CAs trusted.
   */
  secure(open: (trust: Record<string, unknown>, done: Done) => void, done: Done): void {
    if (!this.ca || this.widened) return open(this.whole(), done);
    open(this.caOnly(), (err, socket) => {
      if (err || !socket) return done(err);
      this.handshaking.add(socket);
      // A connection still opening (TCP) gets the connect timeout the request gives others.
      const timer = socket.connecting
        ? setTimeout(
            () =>
              socket.destroy(
                Object.assign(new Error(`no connection within ${this.connectTimeout} ms`), {
                  code: 'UND_ERR_CONNECT_TIMEOUT',
                }),
              ),
            this.connectTimeout,
          )
        : undefined;
      socket.once('connect', () => clearTimeout(timer));
      const closed = () =>
        settle(Object.assign(new Error('the connection closed during its TLS handshake'), { code: 'ECONNRESET' }));
      const settle = (e?: Error & { code?: string }) => {
        clearTimeout(timer);
        this.handshaking.delete(socket);
        socket.off('secureConnect', settle).off('error', settle).off('close', closed);
        if (!e) return done(null, socket);
        if (!VERIFY_ERRORS.has(e.code ?? '')) return done(e);
        this.widened = true;
        open(this.whole(), done);
      };
      // A connection closed without an error (close() below) still ends its request.
      socket.once('secureConnect', settle).once('error', settle).once('close', closed);
    });
  }

  /** End the connections still in their first handshake. */
  close(): void {
    for (const socket of this.handshaking) socket.destroy();
  }
}
