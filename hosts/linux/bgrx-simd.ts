// BGRX → RGB in WebAssembly SIMD: one `i8x16.swizzle` turns four pixels (16 bytes in) into twelve
// bytes out. The capture's pixels and the frames they become live in one WebAssembly memory per
// screen (`screenMemory`), so the conversion reads and writes them in place and the encoder reads
// the frame without a copy. Hand-assembled because nothing maintained does this one shuffle, and
// it was the largest part of a screenshot on the server's thread: 2.1–2.4 ms for 1280×800 in JS
// (a word at a time), 0.28 ms here (bench/api.ts --only agent; bench/README.md). Where a buffer
// is not in such a memory, screen-capture.ts converts in JS as before.
//
// The module, as WebAssembly text (its bytes below, section by section):
//
//   (module
//     (import "m" "memory" (memory 1))
//     (func (export "convert") (param $src i32) (param $dst i32) (param $groups i32)
//       (local $end i32)
//       (local.set $end (i32.add (local.get $src) (i32.shl (local.get $groups) (i32.const 4))))
//       (br_if 0 (i32.eqz (local.get $groups)))
//       (loop $next
//         ;; 16 bytes written, 12 of them the group's; the next group's store covers the other 4
//         ;; (the destination needs 4 bytes to spare after its last group)
//         (v128.store (local.get $dst)
//           (i8x16.swizzle (v128.load (local.get $src))
//             (v128.const i8x16 2 1 0 6 5 4 10 9 8 14 13 12 128 128 128 128)))
//         (local.set $dst (i32.add (local.get $dst) (i32.const 12)))
//         (br_if $next (i32.lt_u (local.tee $src (i32.add (local.get $src) (i32.const 16)))
//                                (local.get $end))))))
const SHUFFLE = [2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, 0x80, 0x80, 0x80, 0x80];
const BODY = [
  ...[0x01, 0x01, 0x7f], // one local: i32 $end
  ...[0x20, 0x00, 0x20, 0x02, 0x41, 0x04, 0x74, 0x6a, 0x21, 0x03], // $end = $src + ($groups << 4)
  ...[0x20, 0x02, 0x45, 0x0d, 0x00], // br_if 0 (i32.eqz $groups)
  ...[0x03, 0x40], // loop
  ...[0x20, 0x01], // $dst
  ...[0x20, 0x00, 0xfd, 0x00, 0x00, 0x00], // v128.load $src
  ...[0xfd, 0x0c, ...SHUFFLE], // v128.const
  ...[0xfd, 0x0e], // i8x16.swizzle
  ...[0xfd, 0x0b, 0x00, 0x00], // v128.store
  ...[0x20, 0x01, 0x41, 0x0c, 0x6a, 0x21, 0x01], // $dst += 12
  ...[0x20, 0x00, 0x41, 0x10, 0x6a, 0x22, 0x00], // local.tee $src ($src + 16)
  ...[0x20, 0x03, 0x49, 0x0d, 0x00], // br_if $next (i32.lt_u … $end)
  ...[0x0b, 0x0b], // end loop, end func
];
const MODULE = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // \0asm, version 1
  ...[0x01, 0x07, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00], // types: (i32 i32 i32) -> ()
  ...[0x02, 0x0d, 0x01, 0x01, 0x6d, 0x06, ...Buffer.from('memory'), 0x02, 0x00, 0x01], // import m.memory
  ...[0x03, 0x02, 0x01, 0x00], // functions: one of type 0
  ...[0x07, 0x0b, 0x01, 0x07, ...Buffer.from('convert'), 0x00, 0x00], // export "convert"
  ...[0x0a, BODY.length + 2, 0x01, BODY.length, ...BODY], // code
]);

/**
 * RGB frames beside each capture area: one being encoded while the next is captured (the same as
 * screen-capture.ts keeps released buffers for).
 */
export const FRAMES_PER_SCREEN = 2;

const PAGE = 64 * 1024;
/** Bytes the last group's store may write past a frame's pixels. */
const SPARE = 16;

interface Converter {
  convert(src: number, dst: number, groups: number): void;
}

/** The part of the WebAssembly API used here (the project's type libraries declare none of it). */
interface Wasm {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly?: Wasm }).WebAssembly;

let compiled: object | null | undefined;

/** The compiled module, or null where this runtime has no WebAssembly SIMD. */
function module(): object | null {
  if (compiled === undefined) compiled = wasm?.validate(MODULE) ? new wasm.Module(MODULE) : null;
  return compiled;
}

/** The converter of each screen memory, by the memory's buffer. */
const converters = new WeakMap<ArrayBufferLike, Converter>();
/** The frames laid out beside each screen memory's capture area. */
const framesOf = new WeakMap<ArrayBufferLike, Buffer[]>();

/**
 * A capture area of `bytes` (BGRX pixels) in a memory of its own, with `frames` RGB frames of as
 * many pixels beside it (`framesBeside`). A plain buffer where WebAssembly SIMD is missing.
 */
export function screenMemory(bytes: number, frames = FRAMES_PER_SCREEN): Buffer {
  const mod = module();
  if (!mod) return Buffer.alloc(bytes);
  const frameBytes = Math.ceil((bytes / 4) * 3) + SPARE;
  const total = bytes + frames * frameBytes;
  const memory = new wasm!.Memory({ initial: Math.ceil(total / PAGE) });
  const { exports } = new wasm!.Instance(mod, { m: { memory } });
  converters.set(memory.buffer, exports as unknown as Converter);
  framesOf.set(
    memory.buffer,
    Array.from({ length: frames }, (_, i) => Buffer.from(memory.buffer, bytes + i * frameBytes, frameBytes)),
  );
  return Buffer.from(memory.buffer, 0, bytes);
}

/** The RGB frames beside a capture area from `screenMemory` (none for any other buffer). */
export function framesBeside(area: Buffer): Buffer[] {
  return framesOf.get(area.buffer) ?? [];
}

/**
 * Converts `pixels` BGRX pixels of `src` into `out` (R, G, B each) when both lie in one screen
 * memory and `out` has 4 bytes to spare after them; false (nothing written) otherwise.
 */
export function bgrxToRgbSimd(src: Buffer, pixels: number, out: Buffer): boolean {
  const converter = converters.get(src.buffer);
  if (!converter || out.buffer !== src.buffer || out.length < pixels * 3 + 4) return false;
  const groups = Math.floor(pixels / 4);
  converter.convert(src.byteOffset, out.byteOffset, groups);
  for (let p = groups * 4, at = groups * 12; p < pixels; p++, at += 3) {
    out[at] = src[p * 4 + 2]!;
    out[at + 1] = src[p * 4 + 1]!;
    out[at + 2] = src[p * 4]!;
  }
  return true;
}
