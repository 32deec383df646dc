// The codes a job holds, so that each is written once: an exact set kept small. A Set of a
// million strings costs some 60 MB of heap (a string object and a table entry per code) and, with
// the launcher's small young generation, garbage the old generation grows around; the job's peak
// RSS went from under 100 MB to 380 MB. Here each code's bytes are appended to one arena (a length
// byte, then the code) and an open-addressing table of 32-bit offsets into it finds them again:
// about 15 bytes plus 8 to 16 bytes of table per code, outside the heap, and a lookup compares the
// bytes themselves, so it is exact (no digest that two codes could share).
//
// Codes are the code shape's characters (ASCII, at most 64; batch.ts checks them). Any other
// string (a cell of an edited file read back on --resume) is kept in a plain Set beside.

const EMPTY = 0;

export class CodeSet {
  private arena: Buffer;
  private used = 1; // offset 0 is never an entry: 0 marks an empty slot
  private table: Int32Array;
  private mask: number;
  private count = 0;
  private readonly odd = new Set<string>();

  constructor(capacity = 1024) {
    const slots = 1 << Math.max(4, Math.ceil(Math.log2(capacity * 2)));
    this.table = new Int32Array(slots);
    this.mask = slots - 1;
    this.arena = Buffer.alloc(Math.max(64, capacity * 16));
  }

  get size(): number {
    return this.count + this.odd.size;
  }

  /** The bytes it holds outside the heap (arena and table). */
  get bytes(): number {
    return this.arena.length + this.table.byteLength;
  }

  has(code: string): boolean {
    if (!storable(code)) return this.odd.has(code);
    return this.table[this.find(code, hashOf(code))] !== EMPTY;
  }

  /** Add the code; false when the set already holds it. */
  add(code: string): boolean {
    if (!storable(code)) {
      if (this.odd.has(code)) return false;
      this.odd.add(code);
      return true;
    }
    const h = hashOf(code);
    const slot = this.find(code, h);
    if (this.table[slot] !== EMPTY) return false;
    const need = this.used + 1 + code.length;
    if (need > 0x7fffffff) throw new RangeError('CodeSet is full');
    if (need > this.arena.length) {
      const grown = Buffer.alloc(Math.min(0x7fffffff, Math.max(need, this.arena.length * 2)));
      this.arena.copy(grown, 0, 0, this.used);
      this.arena = grown;
    }
    const at = this.used;
    this.arena[at] = code.length;
    this.arena.write(code, at + 1, 'latin1');
    this.used = need;
    this.table[slot] = at;
    this.count++;
    if (this.count * 2 > this.table.length) this.grow();
    return true;
  }

  /** The slot holding the code, or the empty slot where it would go. */
  private find(code: string, h: number): number {
    const { table, mask, arena } = this;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = table[i];
      if (at === EMPTY) return i;
      if (arena[at] === code.length && sameBytes(arena, at + 1, code)) return i;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Int32Array(old.length * 2);
    this.mask = this.table.length - 1;
    for (const at of old) {
      if (at === EMPTY) continue;
      let i = hashBytes(this.arena, at + 1, this.arena[at]) & this.mask;
      while (this.table[i] !== EMPTY) i = (i + 1) & this.mask;
      this.table[i] = at;
    }
  }
}

function storable(code: string): boolean {
  return code.length <= 255 && /^[\x21-\x7e]*$/.test(code);
}

function sameBytes(arena: Buffer, at: number, code: string): boolean {
  for (let i = 0; i < code.length; i++) if (arena[at + i] !== code.charCodeAt(i)) return false;
  return true;
}

// FNV-1a over the code's bytes (its characters are ASCII), then a final mix so that the low bits
// (the table's index) depend on every character.
function hashOf(code: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < code.length; i++) h = Math.imul(h ^ code.charCodeAt(i), 0x01000193);
  return mix(h);
}

function hashBytes(arena: Buffer, at: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < length; i++) h = Math.imul(h ^ arena[at + i], 0x01000193);
  return mix(h);
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}
