// The bytes of a sim recording: a well-formed MP4 (ISO BMFF) container — `ftyp` and a `moov` whose
// movie header carries the recording's duration — with no video track. The sim captures no frames;
// the file exists so download, sizes and content types work end to end without claiming a picture.

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
}

/** An MP4 of `durationMs` with a movie header only. */
export function emptyMp4(durationMs: number): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2mp41', 'latin1'));
  const mvhd = box(
    'mvhd',
    u32(0, 0, 0, 1000, Math.max(0, Math.round(durationMs))), // version+flags, created, modified, timescale, duration
    u32(0x00010000), // rate 1.0
    Buffer.from([0x01, 0x00]), // volume 1.0
    Buffer.alloc(10), // reserved
    u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000), // unity matrix
    Buffer.alloc(24), // pre_defined
    u32(1), // next track id
  );
  return Buffer.concat([ftyp, box('moov', mvhd)]);
}
