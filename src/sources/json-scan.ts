// A byte-level scanner that finds each element of a top-level JSON array (the root array, or the array under
// one key of a root object, e.g. Firebase's `{"users": [...]}`) across chunk boundaries, so huge exports are
// read in bounded memory and each element is handed to JSON.parse on its own.
import { UserError } from '../errors.js';

export interface ScannedElement {
  /** The element's JSON text. */
  text: string;
  /** 0-based position in the array. */
  index: number;
  /** Byte offset of the element's first byte. */
  offset: number;
  /** 1-based line of the element's first byte. */
  line: number;
}

export interface ScanOptions {
  /** Key of the root object whose array value holds the elements (e.g. `users`). */
  arrayKey?: string;
  /** Whether a root array is accepted too. Default true. */
  acceptRootArray?: boolean;
}

const enum S {
  BeforeRoot,
  ObjKey,
  ObjKeyString,
  ObjColon,
  ObjValue,
  Elements,
  InValue,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const LF = 0x0a;

function isSpace(c: number): boolean {
  return c === 0x20 || c === LF || c === 0x0d || c === 0x09;
}

export class JsonArrayScanner {
  private state = S.BeforeRoot;
  private offset = 0;
  private line = 1;
  private rootIsArray = false;
  private foundArray = false;
  private needComma = false;
  private key: number[] = [];
  private keyEscape = false;
  // The value being read (an element, or a skipped value of the root object).
  private capturing = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  private primitive = false;
  private parts: Buffer[] = [];
  private start = 0;
  private startOffset = 0;
  private startLine = 1;
  private index = 0;
  /** Position of the next backslash in the chunk being read (scanValue's fast path; n when none). */
  private nextBackslash = -1;

  constructor(
    private readonly file: string,
    private readonly options: ScanOptions = {},
  ) {}

  private fail(what: string, at: number): never {
    throw new UserError(
      `${this.file}: ${what} at byte ${this.offset + at} (line ${this.line}); the file is not valid JSON — fix or export it again`,
    );
  }

  /** Feed the next chunk; returns the elements completed in it. */
  push(buf: Buffer): ScannedElement[] {
    const out: ScannedElement[] = [];
    const n = buf.length;
    let i = 0;
    this.nextBackslash = -1;
    if (this.state === S.InValue) this.start = 0;
    while (i < n) {
      if (this.state === S.InValue) i = this.scanValue(buf, i, out);
      else if (this.state === S.Elements) i = this.elementsByte(buf[i]!, i);
      else i = this.structureByte(buf[i]!, i);
    }
    this.offset += n;
    return out;
  }

  /**
   * The bytes of a value from `i`: to its end (an element is added to `out`), or to the chunk's end (its bytes are
   * kept for the next chunk). Returns where reading goes on.
   */
  private scanValue(buf: Buffer, i: number, out: ScannedElement[]): number {
    const n = buf.length;
    /** Position of the next backslash in this chunk at or after the last lookup (n when none). */
    let nextBackslash = this.nextBackslash;
    // Tight loop over the value's bytes.
    let depth = this.depth;
    let inString = this.inString;
    let escape = this.escape;
    const primitive = this.primitive;
    let end = -1;
    for (; i < n; i++) {
      if (inString && !escape) {
        // Fast path: jump to the next quote with memchr when no backslash comes before it
        // (most strings hold no escapes; the byte loop below handles those that do).
        if (nextBackslash < i) {
          nextBackslash = buf.indexOf(BACKSLASH, i);
          if (nextBackslash < 0) nextBackslash = n;
        }
        const q = buf.indexOf(QUOTE, i);
        if (q < 0) {
          if (nextBackslash === n) {
            i = n;
            break;
          }
        } else if (q < nextBackslash) {
          i = q;
        }
      }
      const b = buf[i]!;
      if (inString) {
        if (escape) escape = false;
        else if (b === BACKSLASH) escape = true;
        else if (b === QUOTE) {
          inString = false;
          if (depth === 0) {
            end = i + 1;
            i++;
            break;
          }
        } else if (b === LF) this.line++;
      } else if (primitive) {
        if (b === COMMA || b === RBRACKET || b === RBRACE || isSpace(b)) {
          end = i; // not consumed: the container states read it
          break;
        }
      } else if (b === QUOTE) inString = true;
      else if (b === LBRACE || b === LBRACKET) depth++;
      else if (b === RBRACE || b === RBRACKET) {
        depth--;
        if (depth === 0) {
          end = i + 1;
          i++;
          break;
        }
      } else if (b === LF) this.line++;
    }
    this.depth = depth;
    this.inString = inString;
    this.escape = escape;
    this.nextBackslash = nextBackslash;
    if (end < 0) {
      if (this.capturing) this.parts.push(buf.subarray(this.start));
      return n;
    }
    if (this.capturing) {
      const text =
        this.parts.length === 0
          ? buf.toString('utf8', this.start, end)
          : Buffer.concat([...this.parts, buf.subarray(0, end)]).toString('utf8');
      this.parts = [];
      out.push({ text, index: this.index++, offset: this.startOffset, line: this.startLine });
      this.state = S.Elements;
      this.needComma = true;
    } else {
      this.state = S.ObjKey;
      this.needComma = true;
    }
    return i;
  }

  /** A byte between the elements of the array: white space, a comma, the closing bracket, or an element's first byte. */
  private elementsByte(c: number, i: number): number {
    if (c === LF) this.line++;
    else if (isSpace(c)) {
      // skip
    } else if (c === COMMA) {
      if (!this.needComma) this.fail('unexpected `,` in the array', i);
      this.needComma = false;
    } else if (c === RBRACKET) {
      this.state = this.rootIsArray ? S.Done : S.ObjKey;
      this.needComma = true;
    } else {
      if (this.needComma) this.fail('expected `,` or `]` between array elements', i);
      this.beginValue(c, i, true);
      return i;
    }
    return i + 1;
  }

  /** A byte of the JSON's structure around the array: its start, the root object's keys, the end. */
  private structureByte(c: number, i: number): number {
    switch (this.state) {
      case S.BeforeRoot:
        if (c === LF) this.line++;
        else if (isSpace(c)) {
          // skip
        } else if (c === LBRACKET && this.options.acceptRootArray !== false) {
          this.rootIsArray = true;
          this.foundArray = true;
          this.state = S.Elements;
        } else if (c === LBRACE && this.options.arrayKey !== undefined) {
          this.state = S.ObjKey;
        } else {
          const expected = [this.options.acceptRootArray !== false ? '`[`' : '', this.options.arrayKey ? '`{`' : '']
            .filter(Boolean)
            .join(' or ');
          this.fail(`expected ${expected} to start the JSON, found ${describeByte(c)}`, i);
        }
        return i + 1;
      case S.ObjKey:
        if (c === LF) this.line++;
        else if (isSpace(c)) {
          // skip
        } else if (c === COMMA && this.needComma) this.needComma = false;
        else if (c === QUOTE && !this.needComma) {
          this.key = [];
          this.keyEscape = false;
          this.state = S.ObjKeyString;
        } else if (c === RBRACE) this.state = S.Done;
        else this.fail(`expected ${this.needComma ? '`,` or `}`' : 'a key'} in the root object, found ${describeByte(c)}`, i);
        return i + 1;
      case S.ObjKeyString:
        if (this.keyEscape) this.keyEscape = false;
        else if (c === BACKSLASH) this.keyEscape = true;
        else if (c === QUOTE) {
          this.state = S.ObjColon;
          return i + 1;
        }
        this.key.push(c);
        return i + 1;
      case S.ObjColon:
        if (c === LF) this.line++;
        else if (c === COLON) this.state = S.ObjValue;
        else if (!isSpace(c)) this.fail(`expected \`:\` after a key, found ${describeByte(c)}`, i);
        return i + 1;
      case S.ObjValue: {
        if (c === LF) {
          this.line++;
          return i + 1;
        }
        if (isSpace(c)) {
          return i + 1;
        }
        const isTarget = Buffer.from(this.key).toString('utf8') === this.options.arrayKey;
        if (isTarget) {
          if (c !== LBRACKET) this.fail(`"${this.options.arrayKey}" is not an array`, i);
          this.foundArray = true;
          this.needComma = false;
          this.state = S.Elements;
          return i + 1;
        }
        this.beginValue(c, i, false);
        return i;
      }
      case S.Done:
        if (c === LF) this.line++;
        else if (!isSpace(c)) this.fail(`unexpected ${describeByte(c)} after the end of the JSON`, i);
        return i + 1;
    }
    // InValue and Elements never come here: push gives them to scanValue and elementsByte.
    return i;
  }

  /** Start reading a value whose first byte is `c` at `i` (the byte is re-read by the InValue loop). */
  private beginValue(c: number, i: number, capture: boolean): void {
    this.state = S.InValue;
    this.capturing = capture;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.primitive = !(c === LBRACE || c === LBRACKET || c === QUOTE);
    this.parts = [];
    this.start = i;
    this.startOffset = this.offset + i;
    this.startLine = this.line;
  }

  /** The stream ended: throw if the JSON is incomplete. */
  end(): void {
    if (this.state === S.Done) {
      if (!this.foundArray) {
        throw new UserError(`${this.file}: no "${this.options.arrayKey}" array in the JSON object; is this the right file or --format?`);
      }
      return;
    }
    if (this.state === S.BeforeRoot) throw new UserError(`${this.file} contains no JSON (only white space); export the users again`);
    const where =
      this.state === S.InValue && this.capturing
        ? `inside element ${this.index} (which starts at byte ${this.startOffset}, line ${this.startLine})`
        : 'before the closing bracket';
    throw new UserError(
      `${this.file}: the JSON ends early at byte ${this.offset} (line ${this.line}) ${where}; the file is truncated — export it again (${this.index} elements were read)`,
    );
  }
}

function describeByte(c: number): string {
  if (c >= 0x20 && c < 0x7f) return `\`${String.fromCharCode(c)}\``;
  return `byte 0x${c.toString(16).padStart(2, '0')}`;
}
