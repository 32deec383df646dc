// The signed-request floor (issue 31): the least any Node client does for `book get --isbn`.
// A bare CommonJS script, none of bookdist's modules: read the RSA key, sign the username
// (RSASSA-PKCS1-v1_5, SHA-256, base64, as wire.md says for a request without a body), send
// the same GET with the same headers over node:http or node:https, print the body.
// With a CA file it trusts Node's own roots and that CA, as `--ca-file` does, the cheapest way
// (the CA added to a default secure context: Node's roots are not parsed again).
// Usage: node bench/signed-request-floor.cjs BASE_URL USERNAME KEY_FILE ISBN [CA_FILE]
'use strict';
const { readFileSync } = require('node:fs');
const { createPrivateKey, createSign } = require('node:crypto');
const [base, username, keyFile, isbn, caFile] = process.argv.slice(2);
const key = createPrivateKey(readFileSync(keyFile));
const url = new URL(`/v1/book/isbn/${encodeURIComponent(isbn)}/`, base);
const headers = {
  accept: 'application/json',
  'user-agent': 'bookdist-floor',
  signature: createSign('RSA-SHA256').update(username, 'utf8').sign(key, 'base64'),
  'api-user': username,
  user: username,
  version: 'v1',
  authorization: 'CryptoAuth',
};
const tls = url.protocol === 'https:';
const options = { headers };
if (caFile) {
  const context = require('node:tls').createSecureContext();
  context.context.addCACert(readFileSync(caFile, 'utf8'));
  options.secureContext = context;
}
require(tls ? 'node:https' : 'node:http')
  .get(url, options, (res) => {
    const parts = [];
    res.on('data', (d) => parts.push(d));
    res.on('end', () => {
      process.stdout.write(Buffer.concat(parts));
      if (res.statusCode !== 200) process.exitCode = 1;
    });
  })
  .on('error', (e) => {
    console.error(e.message);
    process.exit(1);
  });
