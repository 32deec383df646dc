// CSV for bulk inputs and results. RFC 4180: fields separated by commas, records by CRLF or LF,
// fields optionally in double quotes, a quote inside a quoted field doubled, and quoted fields
// may hold commas and line breaks. A UTF-8 BOM is ignored. Small and exact, so no dependency.
import { csvCell } from '../output/format.js';

export interface CsvRecord {
  /** 1-based line number where the record starts (as a spreadsheet or editor shows it). */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'CsvError';
  }
}

/** Parse CSV text into records. Blank lines are skipped. */
export function parseCsv(text: string): CsvRecord[] {
  const out: CsvRecord[] = [];
  const p = new CsvParser((r) => out.push(r));
  p.push(text);
  p.end();
  return out;
}

/** Incremental parser: push chunks of text, get records as they complete. */
export class CsvParser {
  private field = '';
  private fields: string[] = [];
  private inQuotes = false;
  /** The previous char closed a quoted section: only `"`, `,` or a line break may follow. */
  private afterQuote = false;
  private line = 1;
  private recordLine = 1;
  private fieldStarted = false;
  private pendingCR = false;
  private first = true;

  constructor(private readonly onRecord: (r: CsvRecord) => void) {}

  push(chunk: string): void {
    let s = chunk;
    if (this.first) {
      s = s.replace(/^\uFEFF/, '');
      this.first = false;
    }
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (this.pendingCR) {
        this.pendingCR = false;
        if (c === '\n') continue;
      }
      if (this.inQuotes) {
        if (c === '"') {
          this.inQuotes = false;
          this.afterQuote = true;
        } else {
          if (c === '\n') this.line++;
          else if (c === '\r') {
            this.line++;
            if (s[i + 1] === '\n') {
              this.field += '\r\n';
              i++;
              continue;
            }
          }
          this.field += c;
        }
        continue;
      }
      if (this.afterQuote) {
        if (c === '"') {
          // "" inside a quoted field: a literal quote, and we are inside the quotes again.
          this.field += '"';
          this.inQuotes = true;
          this.afterQuote = false;
          continue;
        }
        if (c !== ',' && c !== '\n' && c !== '\r') {
          throw new CsvError(`line ${this.line}: unexpected character after a closing quote (quote the whole field, and double quotes inside it)`, this.line);
        }
        this.afterQuote = false;
      }
      if (c === ',') {
        this.endField();
      } else if (c === '\n' || c === '\r') {
        this.endRecord();
        this.line++;
        this.recordLine = this.line;
        if (c === '\r') this.pendingCR = true;
      } else if (c === '"' && !this.fieldStarted) {
        this.inQuotes = true;
        this.fieldStarted = true;
      } else if (c === '"') {
        throw new CsvError(`line ${this.line}: a quote inside an unquoted field (quote the whole field and double the quote)`, this.line);
      } else {
        this.field += c;
        this.fieldStarted = true;
      }
    }
  }

  end(): void {
    if (this.inQuotes) throw new CsvError(`line ${this.recordLine}: a quoted field is not closed`, this.recordLine);
    this.endRecord();
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = '';
    this.fieldStarted = false;
    this.afterQuote = false;
  }

  private endRecord(): void {
    const empty = this.fields.length === 0 && this.field === '' && !this.fieldStarted && !this.afterQuote;
    if (!empty) {
      this.endField();
      this.onRecord({ line: this.recordLine, fields: this.fields });
    }
    this.fields = [];
    this.field = '';
    this.fieldStarted = false;
    this.afterQuote = false;
  }
}

/** One CSV line (with the trailing newline) from values. */
export function csvLine(values: unknown[]): string {
  return values.map((v) => csvCell(v)).join(',') + '\n';
}

/**
 * Records as objects keyed by the header row (lower-cased, trimmed). Returns the header and rows;
 * `required` names columns that must be present.
 */
export function csvObjects(text: string, required: string[] = []): { header: string[]; rows: Array<{ line: number; values: Record<string, string>; extra: boolean }> } {
  const records = parseCsv(text);
  if (!records.length) return { header: [], rows: [] };
  const header = records[0].fields.map((h) => h.trim().toLowerCase());
  const missing = required.filter((r) => !header.includes(r));
  if (missing.length) throw new CsvError(`the header row lacks the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (it has: ${header.join(', ')})`, records[0].line);
  const rows = records.slice(1).map((r) => {
    const values: Record<string, string> = {};
    header.forEach((h, i) => (values[h] = (r.fields[i] ?? '').trim()));
    return { line: r.line, values, extra: r.fields.length > header.length };
  });
  return { header, rows };
}
