// What a catalogue load answers: its summary, and the two ways it ends without keeping anything
// (a file that cannot be read, a --strict load with refusals). The readers (csv.ts, onix.ts) and
// the loader (load.ts) both use them.

interface Refusal {
  record: number;
  line?: number;
  reference?: string;
  reason: string;
}

export interface LoadSummary {
  format: 'onix' | 'csv';
  records: number;
  added: number;
  updated: number;
  withdrawn: number;
  refused: number;
  skipped: number;
  /** Skipped records by reason (print editions, audio...). */
  skipped_by_reason: Record<string, number>;
  /** What the file holds that the sandbox cannot represent, with how many records hold it. */
  not_represented: Record<string, number>;
  refusals: Refusal[];
  publishers_created: string[];
  /** False when nothing was kept (--strict with refusals, or an error). */
  committed: boolean;
}

export interface LoadOptions {
  /** Put every book under this publisher (created when new). */
  publisher?: string;
  strict?: boolean;
  /** The account that controls the loaded books (default: the seeded partner). */
  accountRole?: string;
}

/** A load refused as a whole (--strict with refusals): rolls the transaction back. */
export class StrictRefusal extends Error {
  constructor(readonly summary: LoadSummary) {
    super(`${summary.refused} record(s) refused; with --strict nothing was loaded.`);
    this.name = 'StrictRefusal';
  }
}

/** Thrown by a reader for a file it cannot read at all (not XML, an unclosed quote...). */
export class CatalogueFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogueFileError';
  }
}
