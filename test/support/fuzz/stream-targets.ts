// Fuzz targets for the byte streams the proxies read (api/ws/): the viewer's half of the RFB
// handshake (acceptViewer), the VM's half as a hostile VNC server inside a tenant's VM would send it
// (authenticateToServer), the viewer's input as the collector reads it (RfbInputReader), and the SSH
// relay, which reads nothing and must pass every byte through untouched both ways. Bytes are drawn
// as a valid stream with one fault (a byte changed, cut short, junk after) or as junk, and cut into
// chunks anywhere. Each case holds: the reader settles once its source has ended (no hang), fails
// only with the protocol's own error (RfbError, never a RangeError or TypeError), and what it reads
// does not depend on where the chunks were cut.
import fc from 'fast-check';
import { ByteReader } from '../../../api/ws/byte-reader.ts';
import { acceptViewer, authenticateToServer, RfbError } from '../../../api/ws/rfb.ts';
import { RfbInputReader, type RfbInputEvent } from '../../../api/collector/rfb-input.ts';
import type { CaseOutcome, FuzzCase, FuzzTarget } from './runner.ts';
import { relayTarget } from './relay-target.ts';

/** A reader whose source has ended settles at once; past this it hangs. */
const SETTLE_MS = 2_000;

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const version = (minor: number) => Buffer.from(`RFB 003.00${minor}\n`, 'latin1');

/** What a viewer sends in its half of the handshake: version, chosen security type, ClientInit. */
const VIEWER_STREAMS = fc.constantFrom(
  Buffer.concat([version(8), Buffer.from([1, 1])]),
  Buffer.concat([version(7), Buffer.from([1, 1])]),
  Buffer.concat([version(3), Buffer.from([1])]),
  Buffer.concat([Buffer.from('RFB 004.000\n'), Buffer.from([1])]),
  Buffer.concat([version(8), Buffer.from([2])]),
);

/** What a VM's VNC server sends to the proxy's client half (the VM may be the tenant's to change). */
const SERVER_STREAMS = fc.constantFrom(
  Buffer.concat([version(8), Buffer.from([1, 1]), u32(0)]),
  Buffer.concat([version(8), Buffer.from([1, 2]), Buffer.alloc(16, 7), u32(0)]),
  Buffer.concat([version(8), Buffer.from([0]), u32(6), Buffer.from('nope!!')]),
  Buffer.concat([version(8), Buffer.from([1, 2]), Buffer.alloc(16), u32(1), u32(0xffffffff)]),
  Buffer.concat([version(7), Buffer.from([2, 5, 2]), Buffer.alloc(16), u32(0)]),
  Buffer.concat([version(3), u32(2), Buffer.alloc(16), u32(0)]),
  Buffer.concat([version(3), u32(0), u32(0x7fffffff)]),
  Buffer.concat([version(3), u32(30)]),
  Buffer.concat([version(8), Buffer.from([3, 16, 18, 19])]),
);

/** Client-to-server messages (RFC 6143 §7.5 and the extensions noVNC speaks), as a viewer sends them. */
const INPUT_MESSAGE = fc.oneof(
  fc.tuple(fc.nat(255), fc.nat(65535), fc.nat(65535)).map(([b, x, y]) => {
    const m = Buffer.alloc(6);
    m.writeUInt8(5, 0);
    m.writeUInt8(b, 1);
    m.writeUInt16BE(x, 2);
    m.writeUInt16BE(y, 4);
    return m;
  }),
  fc.tuple(fc.boolean(), fc.nat()).map(([down, keysym]) => {
    const m = Buffer.alloc(8);
    m.writeUInt8(4, 0);
    m.writeUInt8(down ? 1 : 0, 1);
    m.writeUInt32BE(keysym >>> 0, 4);
    return m;
  }),
  fc.uint8Array({ maxLength: 40 }).map((t) => Buffer.concat([Buffer.from([6, 0, 0, 0]), u32(t.length), t])),
  fc
    .integer({ min: 0, max: 5 })
    .map((n) => Buffer.concat([Buffer.from([2, 0, 0, n]), Buffer.alloc(4 * n, 1)])),
  fc.constant(Buffer.from([3, 1, 0, 0, 0, 0, 5, 0, 3, 32])),
  fc.constant(Buffer.concat([Buffer.from([0, 0, 0, 0]), Buffer.alloc(16, 8)])),
  fc.nat().map((k) => Buffer.concat([Buffer.from([255, 0, 0, 1]), u32(k), u32(k)])),
  fc
    .uint8Array({ maxLength: 10 })
    .map((p) => Buffer.concat([Buffer.from([248, 0, 0, 0]), u32(0), Buffer.from([p.length]), p])),
);

/** A stream with one fault, or junk; `cuts`: where it is cut into chunks. */
function faulted(valid: fc.Arbitrary<Buffer>): fc.Arbitrary<{ bytes: Buffer; cuts: number[] }> {
  const bytes = fc.oneof(
    valid,
    fc.tuple(valid, fc.nat(), fc.nat(255)).map(([b, at, v]) => {
      const c = Buffer.from(b);
      if (c.length) c[at % c.length] = v;
      return c;
    }),
    fc.tuple(valid, fc.nat()).map(([b, n]) => b.subarray(0, n % (b.length + 1))),
    fc.tuple(valid, fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([b, j]) => Buffer.concat([b, j])),
    fc.uint8Array({ maxLength: 64 }).map((j) => Buffer.from(j)),
  );
  return fc.record({ bytes, cuts: fc.array(fc.nat(), { maxLength: 6 }) });
}

function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(from, c));
    from = c;
  }
  return out;
}

/** Runs a handshake half over the chunks, the source then ending; how it settled. */
async function handshake(
  parts: Buffer[],
  run: (reader: ByteReader, write: (b: Buffer) => void) => Promise<void>,
): Promise<CaseOutcome> {
  const started = performance.now();
  const reader = new ByteReader();
  let timer: NodeJS.Timeout | undefined;
  const settled = run(reader, () => {}).then(
    () => 'ok',
    (err: unknown) =>
      err instanceof RfbError ? 'refused' : `crash: ${String((err as Error)?.stack ?? err)}`,
  );
  for (const p of parts) reader.push(p);
  reader.fail(new RfbError('the source ended'));
  const outcome = await Promise.race([
    settled,
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('hang'), SETTLE_MS))),
  ]);
  clearTimeout(timer);
  const problems = outcome === 'ok' || outcome === 'refused' ? [] : [outcome];
  return {
    ms: performance.now() - started,
    outcome: outcome.split(':')[0]!,
    problems,
    sent: describe(parts),
  };
}

function describe(parts: Buffer[]): string {
  return parts.map((p) => p.toString('hex')).join(' | ');
}

function handshakeTarget(
  name: string,
  valid: fc.Arbitrary<Buffer>,
  run: (reader: ByteReader, write: (b: Buffer) => void) => Promise<void>,
): FuzzTarget {
  return {
    name,
    cases: faulted(valid).map(({ bytes, cuts }): FuzzCase => ({
      run: () => handshake(chunks(bytes, cuts), run),
      [fc.toStringMethod]: () => `${name} ${describe(chunks(bytes, cuts))}`,
    })),
  };
}

/** The collector's reading of viewer input: no throw, and the same events however the bytes are cut. */
function inputTarget(): FuzzTarget {
  const valid = fc
    .array(INPUT_MESSAGE, { maxLength: 12 })
    .map((ms) => Buffer.concat([Buffer.from([1]), ...ms]));
  const read = (parts: Buffer[]) => {
    const events: RfbInputEvent[] = [];
    const unknown: number[] = [];
    const reader = new RfbInputReader({
      skip: 1,
      onEvent: (e) => events.push(e),
      onUnknown: (t) => unknown.push(t),
    });
    for (const p of parts) reader.push(Buffer.from(p)); // a copy: the relay reuses its buffers
    return { events, unknown };
  };
  return {
    name: 'rfb viewer input (collector)',
    cases: faulted(valid).map(({ bytes, cuts }): FuzzCase => ({
      async run() {
        const started = performance.now();
        const parts = chunks(bytes, cuts);
        const problems: string[] = [];
        let outcome = 'ok';
        try {
          const whole = read([bytes]);
          const cut = read(parts);
          if (JSON.stringify(whole) !== JSON.stringify(cut))
            problems.push(
              `chunking changed what was read: ${JSON.stringify(whole)} vs ${JSON.stringify(cut)}`,
            );
          if (whole.unknown.length) outcome = 'stopped';
        } catch (err) {
          outcome = 'crash';
          problems.push(`threw: ${(err as Error).stack}`);
        }
        return { ms: performance.now() - started, outcome, problems, sent: describe(parts) };
      },
      [fc.toStringMethod]: () => `input ${describe(chunks(bytes, cuts))}`,
    })),
  };
}

export function streamTargets(): FuzzTarget[] {
  return [
    handshakeTarget('rfb viewer handshake (acceptViewer)', VIEWER_STREAMS, acceptViewer),
    handshakeTarget('rfb vm login (authenticateToServer)', SERVER_STREAMS, (reader, write) =>
      authenticateToServer(reader, write, 'secret'),
    ),
    inputTarget(),
    relayTarget(),
  ];
}
