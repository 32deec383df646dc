// `sandbox catalogue load`: a catalogue file (ONIX 3.0 or CSV) into the sandbox, read as a stream.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Store } from '../db/store.js';
import { loadCatalogue, type CatalogueLoader } from './load.js';
import { CatalogueFileError, type LoadOptions, type LoadSummary } from './summary.js';

export { CatalogueFileError, StrictRefusal, type LoadSummary } from './summary.js';

type CatalogueFormat = 'onix' | 'csv';

/** The format of a file: by its name (.xml, .onix, .csv), else by its first character ('<' is XML). */
export async function detectFormat(path: string): Promise<CatalogueFormat> {
  if (/\.(xml|onix)$/i.test(path)) return 'onix';
  if (/\.(csv|txt)$/i.test(path)) return 'csv';
  const fh = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(512), 0, 512, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('latin1')
      .replace(/^(\xef\xbb\xbf|\xff\xfe|\xfe\xff)/, '')
      .replace(/\0/g, '');
    return head.trimStart().startsWith('<') ? 'onix' : 'csv';
  } finally {
    await fh.close();
  }
}

interface StreamLoadOptions extends LoadOptions {
  /** Called after each record: records read so far. */
  onRecord?: (records: number) => void;
}

export interface FileLoadOptions extends StreamLoadOptions {
  format?: CatalogueFormat;
  /** Called as the file is read: bytes read so far. */
  onBytes?(bytes: number): void;
}

/** Load a catalogue read from `source` (its bytes, in order) into `store` in one transaction (see load.ts). */
export async function loadCatalogueStream(
  store: Store,
  format: CatalogueFormat,
  source: AsyncIterable<Buffer>,
  opts: StreamLoadOptions = {},
): Promise<LoadSummary> {
  let n = 0;
  if (format === 'onix') {
    const { pumpOnix } = await import('./onix.js');
    const pump = (loader: CatalogueLoader) =>
      pumpOnix(source, {
        add: (rec) => {
          loader.add(rec);
          opts.onRecord?.(++n);
        },
        notePrintEdition: (d, p) => loader.notePrintEdition(d, p),
      });
    return loadCatalogue(store, format, pump, opts);
  }
  const { readCsv } = await import('./csv.js');
  return loadCatalogue(store, format, () => counted(readCsv(source), opts.onRecord), opts);
}

/** Load a catalogue file into `store` in one transaction (see load.ts for the rules). */
export async function loadCatalogueFile(store: Store, path: string, opts: FileLoadOptions = {}): Promise<LoadSummary> {
  const format = opts.format ?? (await detectFormat(path));
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  let bytes = 0;
  async function* source(): AsyncGenerator<Buffer> {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      opts.onBytes?.(bytes);
      yield chunk;
    }
  }
  try {
    return await loadCatalogueStream(store, format, source(), opts);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
      throw new CatalogueFileError(
        `${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : 'permission denied'}.`,
      );
    }
    throw err;
  } finally {
    stream.destroy();
  }
}

async function* counted<T>(records: AsyncIterable<T>, onRecord?: (n: number) => void): AsyncGenerator<T> {
  let n = 0;
  for await (const r of records) {
    yield r;
    onRecord?.(++n);
  }
}
