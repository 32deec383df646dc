// The request as a curl command line (--dry-run prints it), secrets redacted.
import { redactHeaders, redactRequestText, REDACTED } from './wire.js';

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command, secrets redacted. */
export function curlLine(p: {
  method: string;
  url: string;
  headers: Record<string, string>;
  requestText?: string;
}): string {
  const parts = ['curl', '-X', p.method, shq(p.url)];
  for (const [k, v] of Object.entries(redactHeaders(p.headers))) {
    if (k === 'content-type' || k === 'user-agent') continue;
    parts.push('-H', shq(`${k}: ${v === REDACTED ? '<redacted>' : v}`));
  }
  if (p.requestText !== undefined) parts.push('--data-urlencode', shq('request=' + redactRequestText(p.requestText)));
  return parts.join(' ');
}
