// Open an export file as a stream of bytes: gunzip `.gz` (or gzip-magic) files, drop a UTF-8 BOM, and turn
// every way a file can be unreadable into a UserError naming the file and what to do. `-` is standard input (stdin.ts).
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { UserError } from '../errors.js';
import { physicalPath, sourceName } from './stdin.js';

const GZIP_MAGIC = [0x1f, 0x8b];
const BOM = [0xef, 0xbb, 0xbf];
/** How much of a file detection and the binary check look at. */
export const SNIFF_BYTES = 64 * 1024;

/** Fail early, with a message, for files that do not exist, are directories or are empty. */
export async function checkReadable(path: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(await physicalPath(path));
    if (info.isDirectory()) throw new UserError(`${path} is a directory; give the path of an export file`);
    size = info.size;
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`${path}: no such file; check the path`);
    if (code === 'EACCES') throw new UserError(`${path}: permission denied; make the file readable`);
    throw new UserError(`${path}: cannot be read (${code ?? (err as Error).message})`);
  }
  if (size === 0) throw new UserError(`${sourceName(path)} is empty (0 bytes); export the users again or remove it from the list`);
}

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(await physicalPath(path), 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export function isGzipName(path: string): boolean {
  return /\.gz$/i.test(path);
}

/** Whether the file is gzip: by its magic bytes; a `.gz` name without them is an error. */
export async function isGzipFile(path: string): Promise<boolean> {
  const head = await readHead(path, 2);
  const magic = head.length === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  if (!magic && isGzipName(path)) {
    throw new UserError(`${path} is named .gz but is not gzip-compressed (byte 0); rename it without .gz or compress it again`);
  }
  return magic;
}

/**
 * The (decompressed) bytes of a file, BOM removed. Gzip errors become UserErrors naming the
 * compressed byte offset reached.
 */
export async function* openBytes(path: string, chunkSize = 256 * 1024): AsyncGenerator<Buffer> {
  await checkReadable(path);
  const gzip = await isGzipFile(path);
  const file = createReadStream(await physicalPath(path), { highWaterMark: chunkSize });
  const stream = gzip ? file.pipe(createGunzip({ chunkSize })) : file;
  if (gzip) file.on('error', (err) => stream.destroy(err));
  let first = true;
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let bytes = chunk;
      if (first) {
        first = false;
        if (bytes.length >= 3 && bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]) bytes = bytes.subarray(3);
        if (gzip && bytes.length === 0) continue;
      }
      total += bytes.length;
      if (bytes.length > 0) yield bytes;
    }
  } catch (err) {
    if (err instanceof UserError) throw err;
    if (gzip) {
      throw new UserError(
        `${path}: the gzip data is damaged or truncated (after ${total} decompressed bytes, at compressed byte ${file.bytesRead}); download the export again`,
      );
    }
    throw new UserError(`${path}: reading failed at byte ${total} (${(err as Error).message})`);
  } finally {
    file.destroy();
  }
  if (gzip && total === 0) throw new UserError(`${path} decompresses to nothing; export the users again`);
}

/** The first bytes of the decompressed, BOM-less content (for sniffing). */
export async function readStart(path: string, bytes = SNIFF_BYTES): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  const it = openBytes(path, Math.min(bytes, 64 * 1024));
  try {
    for await (const chunk of it) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= bytes) break;
    }
  } finally {
    await it.return(undefined);
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

/**
 * Throw when the start of a file is not text: a NUL byte, or bytes that are not UTF-8 (a multi-byte
 * sequence cut by the end of the sample is allowed).
 */
export function assertText(path: string, head: Buffer): void {
  const nul = head.indexOf(0);
  const bad = nul >= 0 ? nul : firstInvalidUtf8(head);
  if (bad >= 0) {
    throw new UserError(
      `${path} is not a text export (binary data at byte ${bad}); give a JSON, NDJSON, CSV or otpauth file (gzip is fine)`,
    );
  }
}

/** Offset of the first invalid UTF-8 byte, or -1. A sequence truncated at the end counts as valid. */
export function firstInvalidUtf8(buf: Buffer): number {
  let i = 0;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return -1;
      const c = buf[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** The start of a text export: binary data and content that is only a BOM or white space are refused. */
export async function readTextHead(path: string, bytes = SNIFF_BYTES): Promise<Buffer> {
  const head = await readStart(path, bytes);
  assertText(path, head);
  if (head.toString('utf8').trim() === '') {
    throw new UserError(
      `${path} has no content (only white space or a byte order mark); export the users again or remove it from the list`,
    );
  }
  return head;
}
