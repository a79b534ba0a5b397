// A macOS guest's clipboard (the general pasteboard), in the guest user's GUI session (the
// pasteboard server answers only there; guest-os.ts's inSession enters it): text through `pbcopy`
// (UTF-8), images and reading through AppKit's NSPasteboard in JXA (`osascript -l JavaScript`).
// Images are PNG (public.png); a pasteboard holding only TIFF (what many apps copy) is converted
// with NSBitmapImageRep. The scripts are constants; content goes on stdin, limits as arguments.
// Written to Apple's documented interfaces and not run here (no Mac): the emulated Macs' guests are
// Linux desktops and take clipboard-x.ts.
import { DriverError, type ClipboardContent } from '../driver.ts';
import { checkClipboard, clipboardLimit } from '../clipboard.ts';
import type { ClipboardRun } from '../linux/clipboard-x.ts';
import { shellQuote } from '../linux/ssh-client.ts';
import type { GuestOs } from './guest-os.ts';

/** Prints `text`, `image`, `empty` or `toolarge <kind>` on a line, then the content in base64. */
const GET_JXA = `ObjC.import('AppKit');
function run(argv) {
  const prefer = argv[0], textMax = Number(argv[1]), imageMax = Number(argv[2]);
  const pb = $.NSPasteboard.generalPasteboard;
  const text = pb.dataForType($.NSPasteboardTypeString);
  let png = pb.dataForType($.NSPasteboardTypePNG);
  if (png.isNil()) {
    const tiff = pb.dataForType($.NSPasteboardTypeTIFF);
    if (!tiff.isNil()) png = $.NSBitmapImageRep.imageRepWithData(tiff).representationUsingTypeProperties($.NSBitmapImageFileTypePNG, $());
  }
  const kinds = { text: [text, textMax], image: [png, imageMax] };
  for (const kind of prefer === 'image' ? ['image', 'text'] : ['text', 'image']) {
    const [data, max] = kinds[kind];
    if (!data || data.isNil()) continue;
    if (data.length > max) return 'toolarge ' + kind + '\\n';
    return kind + '\\n' + ObjC.unwrap(data.base64EncodedStringWithOptions(0));
  }
  return 'empty\\n';
}`;

/** Puts the PNG bytes on stdin on the pasteboard. */
const SET_IMAGE_JXA = `ObjC.import('AppKit');
function run() {
  const data = $.NSFileHandle.fileHandleWithStandardInput.readDataToEndOfFile;
  const pb = $.NSPasteboard.generalPasteboard;
  pb.clearContents;
  if (!pb.setDataForType(data, $.NSPasteboardTypePNG)) throw new Error('the pasteboard refused the image');
  return 'ok';
}`;

export async function getMacClipboard(
  run: ClipboardRun,
  os: GuestOs,
  prefer: 'text' | 'image' = 'text',
): Promise<ClipboardContent> {
  const args = [prefer, String(clipboardLimit('text')), String(clipboardLimit('image'))].map(shellQuote);
  const r = await run(os.inSession(`osascript -l JavaScript -e ${shellQuote(GET_JXA)} ${args.join(' ')}`));
  const out = r.stdout.toString('utf8').trim();
  const nl = out.indexOf('\n');
  const kind = nl < 0 ? out : out.slice(0, nl);
  if (r.code !== 0) throw failed(r.stderr, r.code);
  if (kind.startsWith('toolarge ')) {
    const what = kind.slice('toolarge '.length) === 'image' ? 'image' : 'text';
    throw new DriverError(
      'too_large',
      `the clipboard's ${what} is over ${clipboardLimit(what) / (1024 * 1024)} MiB`,
    );
  }
  const data = Buffer.from(nl < 0 ? '' : out.slice(nl + 1), 'base64');
  if (kind === 'text') return { type: 'text', text: data.toString('utf8') };
  if (kind === 'image' && data.length > 0) return { type: 'image', mimeType: 'image/png', data };
  if (kind === 'empty' || kind === 'image') return { type: 'empty' };
  throw failed(r.stderr, r.code);
}

export async function setMacClipboard(
  run: ClipboardRun,
  os: GuestOs,
  content: Exclude<ClipboardContent, { type: 'empty' }>,
): Promise<void> {
  checkClipboard(content);
  const r =
    content.type === 'text'
      ? await run(os.inSession('LC_ALL=en_US.UTF-8 pbcopy'), Buffer.from(content.text, 'utf8'))
      : await run(os.inSession(`osascript -l JavaScript -e ${shellQuote(SET_IMAGE_JXA)}`), content.data);
  if (r.code !== 0) throw failed(r.stderr, r.code);
}

function failed(stderr: string, code: number): DriverError {
  const line = stderr.trim().split('\n')[0] ?? '';
  return new DriverError('command_failed', `the pasteboard: ${line || `exit ${code}`}`, 'osascript');
}
