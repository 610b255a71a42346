import { closeSync, openSync, readSync, fstatSync } from 'node:fs';

/*
 * SQLite reads a write-ahead log up to its first frame that fails its checksum and silently drops
 * the rest. After a crash that is right (a torn last transaction was never committed); when frames
 * of the same log generation follow the bad one, committed transactions would vanish without a
 * word. This reads the log as SQLite's file format describes it (https://www.sqlite.org/fileformat.html,
 * "The WAL File Format") and names that damage instead (ADR 0115). Read-only; nothing is written.
 */

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** What is wrong with the WAL at `walPath`, or undefined when it is absent, empty, sound, or only torn at its end. */
export function walDamage(walPath: string): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(walPath, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(descriptor).size;
    if (size === 0) return undefined;
    const header = readAt(descriptor, 0, WAL_HEADER);
    if (header.length < WAL_HEADER) return `it is ${size} bytes, shorter than a WAL header`;
    const magic = header.readUInt32BE(0);
    if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return 'it does not start with the WAL magic number';
    const bigEndian = magic === MAGIC_BIG_ENDIAN;
    const pageSize = header.readUInt32BE(8);
    const frameSize = FRAME_HEADER + pageSize;
    const frames = Math.floor((size - WAL_HEADER) / frameSize);
    let sum = checksum(header.subarray(0, 24), [0, 0], bigEndian);
    if (sum[0] !== header.readUInt32BE(24) || sum[1] !== header.readUInt32BE(28)) {
      return frames > 0 ? `its header fails its checksum, so all ${frames} frame(s) in it would be ignored` : undefined;
    }
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    for (let index = 0; index < frames; index++) {
      const frame = readAt(descriptor, WAL_HEADER + index * frameSize, frameSize);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) return undefined; // an older generation: the log ends here
      const next = checksum(frame.subarray(FRAME_HEADER), checksum(frame.subarray(0, 8), sum, bigEndian), bigEndian);
      if (next[0] === frame.readUInt32BE(16) && next[1] === frame.readUInt32BE(20)) {
        sum = next;
        continue;
      }
      const committedAfter = countCommitsAfter(descriptor, index + 1, frames, frameSize, salt1, salt2);
      return committedAfter === 0 ? undefined : `frame ${index + 1} of ${frames} fails its checksum and ${committedAfter} committed transaction(s) follow it`;
    }
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

/** Commit frames (non-zero "database size after commit") of this generation after frame `from`. */
function countCommitsAfter(descriptor: number, from: number, frames: number, frameSize: number, salt1: number, salt2: number): number {
  let commits = 0;
  for (let index = from; index < frames; index++) {
    const frameHeader = readAt(descriptor, WAL_HEADER + index * frameSize, FRAME_HEADER);
    if (frameHeader.readUInt32BE(8) !== salt1 || frameHeader.readUInt32BE(12) !== salt2) break;
    if (frameHeader.readUInt32BE(4) !== 0) commits++;
  }
  return commits;
}

function readAt(descriptor: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(descriptor, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/** SQLite's WAL checksum: over 32-bit words in pairs, continuing from `seed`. */
function checksum(data: Buffer, seed: readonly [number, number] | number[], bigEndian: boolean): [number, number] {
  let s0 = seed[0]!;
  let s1 = seed[1]!;
  for (let offset = 0; offset + 8 <= data.length; offset += 8) {
    const x0 = bigEndian ? data.readUInt32BE(offset) : data.readUInt32LE(offset);
    const x1 = bigEndian ? data.readUInt32BE(offset + 4) : data.readUInt32LE(offset + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}
