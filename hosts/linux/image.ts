// An image of the linux driver is a template home directory: the desktop's configuration and a few
// files, the programs themselves being the machine's (xterm as the terminal, a small GTK text editor,
// zenity and gtk3-widget-factory for dialogs and widgets). The template is built once per image in
// the data dir; each VM user gets its own copy of it as its overlay lower layer, owned by that user,
// because overlayfs keeps the lower layer's owners and the VM user must own its files (chmod, ssh).
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lchownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

interface TemplateFile {
  path: string;
  content: string;
  mode: number;
}

const EDITOR = `#!/usr/bin/python3
# A small GTK 3 text editor: its text view is visible to accessibility tools (AT-SPI).
import sys
import gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gtk, Gdk

class Editor(Gtk.Window):
    def __init__(self, path):
        super().__init__(title='Text Editor')
        self.path = path
        self.set_default_size(720, 480)
        bar = Gtk.HeaderBar(show_close_button=True, title='Text Editor', subtitle=path or 'untitled')
        save = Gtk.Button(label='Save')
        save.connect('clicked', lambda _b: self.save())
        bar.pack_end(save)
        self.set_titlebar(bar)
        self.view = Gtk.TextView(monospace=True)
        self.view.get_accessible().set_name('Document')
        scroll = Gtk.ScrolledWindow()
        scroll.add(self.view)
        self.add(scroll)
        if path:
            try:
                with open(path, encoding='utf-8') as f:
                    self.view.get_buffer().set_text(f.read())
            except FileNotFoundError:
                pass
        self.connect('key-press-event', self.on_key)

    def on_key(self, _w, ev):
        if ev.state & Gdk.ModifierType.CONTROL_MASK and Gdk.keyval_to_lower(ev.keyval) == Gdk.KEY_s:
            self.save()
            return True
        return False

    def save(self):
        if not self.path:
            return
        buf = self.view.get_buffer()
        with open(self.path, 'w', encoding='utf-8') as f:
            f.write(buf.get_text(buf.get_start_iter(), buf.get_end_iter(), True))

win = Editor(sys.argv[1] if len(sys.argv) > 1 else None)
win.connect('destroy', Gtk.main_quit)
win.show_all()
Gtk.main()
`;

const MENU = `<?xml version="1.0" encoding="UTF-8"?>
<openbox_menu xmlns="http://openbox.org/3.4/menu">
  <menu id="root-menu" label="sandbay">
    <item label="Terminal"><action name="Execute"><command>xterm</command></action></item>
    <item label="Text Editor"><action name="Execute"><command>~/.local/bin/text-editor</command></action></item>
    <item label="Widget Factory"><action name="Execute"><command>gtk3-widget-factory</command></action></item>
  </menu>
</openbox_menu>
`;

const DESKTOP_ENTRY = `[Desktop Entry]
Type=Application
Name=Text Editor
Exec=text-editor %f
Terminal=false
Categories=Utility;TextEditor;
`;

const README = `This is a sandbay desktop (a Linux stand-in for a macOS VM).
Terminal: xterm. Text editor: text-editor (GTK 3, in ~/.local/bin). Right-click the desktop for a menu.
`;

/**
 * openbox's own configuration with one desktop: with its default four, a wheel scroll on the desktop
 * switches desktops, and a click after that leaves no window focused — an agent scrolling the desktop
 * would then type into nothing. One desktop turns every GoToDesktop binding into a no-op.
 */
export function openboxRc(system = '/etc/xdg/openbox/rc.xml'): string | undefined {
  let rc: string;
  try {
    rc = readFileSync(system, 'utf8');
  } catch {
    return undefined;
  }
  return rc.replace(
    /(<desktops>[\s\S]*?<number>)\d+(<\/number>)/,
    (_, open: string, close: string) => `${open}1${close}`,
  );
}

function skel(name: string, fallback: string): string {
  try {
    return readFileSync(join('/etc/skel', name), 'utf8');
  } catch {
    return fallback;
  }
}

/** The files of the template home, the same for every image of this driver. */
export function templateFiles(): TemplateFile[] {
  const rc = openboxRc();
  return [
    ...(rc === undefined ? [] : [{ path: '.config/openbox/rc.xml', content: rc, mode: 0o644 }]),
    { path: '.profile', content: skel('.profile', 'PATH="$HOME/.local/bin:$PATH"\n'), mode: 0o644 },
    { path: '.bashrc', content: skel('.bashrc', ''), mode: 0o644 },
    { path: '.bash_logout', content: skel('.bash_logout', ''), mode: 0o644 },
    { path: '.config/openbox/menu.xml', content: MENU, mode: 0o644 },
    { path: '.local/bin/text-editor', content: EDITOR, mode: 0o755 },
    { path: '.local/share/applications/text-editor.desktop', content: DESKTOP_ENTRY, mode: 0o644 },
    { path: 'Desktop/README.txt', content: README, mode: 0o644 },
    { path: 'Documents/.keep', content: '', mode: 0o644 },
  ];
}

/** Identifies the template's content; a changed template gets new lower copies. */
export function templateStamp(files = templateFiles()): string {
  return createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 12);
}

/** Builds `<imagesDir>/<image>/template-<stamp>` once (root-owned); returns its path. */
export function ensureTemplate(imagesDir: string, image: string): string {
  const files = templateFiles();
  const dir = join(imagesDir, image, `template-${templateStamp(files)}`);
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  for (const f of files) {
    const p = join(tmp, f.path);
    mkdirSync(dirname(p), { recursive: true, mode: 0o755 });
    writeFileSync(p, f.content, { mode: f.mode });
    chmodSync(p, f.mode);
  }
  chmodSync(tmp, 0o755);
  publish(tmp, dir);
  return dir;
}

/**
 * The template as owned by `uid:gid` (the VM user's lower layer), built once per user and template.
 * Callers must not remove a lower dir that a mounted home still uses.
 */
export function ensureUserLower(imagesDir: string, image: string, uid: number, gid: number): string {
  const template = ensureTemplate(imagesDir, image);
  const dir = join(imagesDir, image, 'lower', `${uid}-${template.slice(template.lastIndexOf('-') + 1)}`);
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(dirname(tmp), { recursive: true, mode: 0o700 });
  cpSync(template, tmp, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  chownTree(tmp, uid, gid);
  publish(tmp, dir);
  return dir;
}

/** Moves a fully built dir into place; if a concurrent builder got there first, keeps theirs. */
function publish(tmp: string, dir: string): void {
  try {
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw e;
  }
}

function chownTree(dir: string, uid: number, gid: number): void {
  lchownSync(dir, uid, gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) chownTree(p, uid, gid);
    else lchownSync(p, uid, gid);
  }
}
