// The bytes of an ONIX (XML) file turned into text for the parser: the encoding from a byte-order
// mark, else the XML declaration, else UTF-8, decoded strictly (a byte the encoding does not allow
// is an error that names the fix).
import type { SaxesParser } from 'saxes';
import { CatalogueFileError } from './summary.js';

/** The encoding of an XML file from its first bytes: a byte-order mark, else the declaration, else UTF-8. */
function sniffEncoding(head: Buffer): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  if (head[0] === 0x3c && head[1] === 0x00) return 'utf-16le';
  if (head[0] === 0x00 && head[1] === 0x3c) return 'utf-16be';
  const decl = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head.toString('latin1'));
  return decl ? decl[1].toLowerCase() : 'utf-8';
}

/**
 * Feeds `parser` with text decoded from bytes as the file declares (a byte-order mark, else the
 * XML declaration's encoding, else UTF-8), once the declaration (or 1 KB) has arrived; text
 * chunks go in as they are.
 */
export function byteFeeder(parser: SaxesParser): { write(chunk: Buffer | string): void; end(): void } {
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let head: Buffer | undefined = Buffer.alloc(0);
  const feed = (s: string) => {
    if (s) parser.write(s);
  };
  const decode = (buf: Buffer, end: boolean): string => {
    try {
      return decoder!.decode(buf, { stream: !end });
    } catch {
      throw new CatalogueFileError(
        `The file is not valid ${decoder!.encoding.toUpperCase()}${parser.line ? ` (near line ${parser.line})` : ''}: declare its real encoding in <?xml ... encoding="..."?>, or convert it to UTF-8.`,
      );
    }
  };
  const start = (buf: Buffer) => {
    const label = sniffEncoding(buf);
    try {
      decoder = new TextDecoder(label, { fatal: true });
    } catch {
      throw new CatalogueFileError(
        `The file declares the encoding "${label.slice(0, 40)}", which bookdist cannot read; convert it to UTF-8.`,
      );
    }
  };
  return {
    write(chunk: Buffer | string) {
      if (typeof chunk === 'string') {
        head = undefined;
        feed(chunk);
      } else if (head) {
        // Wait for the XML declaration (or 1 KB) before choosing the decoder.
        head = Buffer.concat([head, chunk]);
        if (head.length < 1024 && !head.includes('?>') && !head.includes(0)) return;
        start(head);
        const first = head;
        head = undefined;
        feed(decode(first, false));
      } else feed(decode(chunk, false));
    },
    end() {
      if (head) {
        start(head);
        feed(decode(head, false));
      }
      if (decoder) feed(decode(Buffer.alloc(0), true));
    },
  };
}
