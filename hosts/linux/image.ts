// An image of the linux driver is a template home directory: the XFCE session's configuration and a
// few files, the programs themselves being the machine's (XFCE: xfwm4, panel, desktop, Thunar,
// xfce4-terminal, Mousepad; Debian's Chromium with sandbay's managed policy). The template is built
// once per image in the data dir; each VM user gets its own copy of it as its overlay lower layer,
// owned by that user, because overlayfs keeps the lower layer's owners and the VM user must own its
// files (chmod, ssh). Only what differs from XFCE's system defaults is written (xfconf merges the
// user's channel files over /etc/xdg).
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, lchown, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

interface TemplateFile {
  path: string;
  content: string;
  mode: number;
}

const XFCONF = '.config/xfce4/xfconf/xfce-perchannel-xml';

/**
 * xfwm4: one workspace (with four, a wheel scroll on the desktop switches workspaces and the windows
 * vanish from an agent's screenshot), no compositing (Xvfb has no GPU; it only costs CPU and memory).
 */
const XFWM4 = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfwm4" version="1.0">
  <property name="general" type="empty">
    <property name="workspace_count" type="int" value="1"/>
    <property name="use_compositing" type="bool" value="false"/>
    <property name="scroll_workspaces" type="bool" value="false"/>
  </property>
</channel>
`;

/**
 * The session: xfsettingsd first (it resets the keyboard map and the theme as it starts: input sent
 * meanwhile was lost), then the window manager, the panel and the desktop at once (XFCE's default
 * starts them one priority group after the other, each waiting for the last to register), without
 * Thunar's daemon (Thunar starts when asked, over D-Bus); no ssh-agent or gpg-agent; nothing saved at
 * exit: every boot is the image.
 */
const SESSION = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-session" version="1.0">
  <property name="general" type="empty">
    <property name="SaveOnExit" type="bool" value="false"/>
  </property>
  <property name="startup" type="empty">
    <property name="ssh-agent" type="empty">
      <property name="enabled" type="bool" value="false"/>
    </property>
    <property name="gpg-agent" type="empty">
      <property name="enabled" type="bool" value="false"/>
    </property>
  </property>
  <property name="sessions" type="empty">
    <property name="Failsafe" type="empty">
      <property name="IsFailsafe" type="bool" value="true"/>
      <property name="Count" type="int" value="4"/>
      <property name="Client0_Command" type="array">
        <value type="string" value="xfwm4"/>
      </property>
      <property name="Client0_Priority" type="int" value="15"/>
      <property name="Client0_PerScreen" type="bool" value="false"/>
      <property name="Client1_Command" type="array">
        <value type="string" value="xfsettingsd"/>
      </property>
      <property name="Client1_Priority" type="int" value="10"/>
      <property name="Client1_PerScreen" type="bool" value="false"/>
      <property name="Client2_Command" type="array">
        <value type="string" value="xfce4-panel"/>
      </property>
      <property name="Client2_Priority" type="int" value="15"/>
      <property name="Client2_PerScreen" type="bool" value="false"/>
      <property name="Client3_Command" type="array">
        <value type="string" value="xfdesktop"/>
      </property>
      <property name="Client3_Priority" type="int" value="15"/>
      <property name="Client3_PerScreen" type="bool" value="false"/>
    </property>
  </property>
</channel>
`;

/** XFCE's default keyboard shortcuts, where Debian keeps them. */
const SHORTCUTS_DEFAULTS = '/etc/xdg/xfce4/xfconf/xfce-perchannel-xml/xfce4-keyboard-shortcuts.xml';

/**
 * XFCE's application shortcuts without the ones on vendor keys (XF86WWW, XF86Mail, XF86Display,
 * HomePage). The settings daemon grabs each shortcut's keycode; the driver types characters missing
 * from the keyboard map by binding them to spare keycodes, which include the vendor keys' (a virtual
 * keyboard has none): a character bound to a grabbed keycode went to the shortcut, not to the app.
 * The user's `custom` set with `override` replaces the defaults; undefined without the system file.
 */
export function keyboardShortcuts(system = SHORTCUTS_DEFAULTS): string | undefined {
  let xml: string;
  try {
    xml = readFileSync(system, 'utf8');
  } catch {
    return undefined;
  }
  const defaults =
    /<property name="commands" type="empty">\s*<property name="default" type="empty">([\s\S]*?)<\/property>\s*<\/property>/.exec(
      xml,
    )?.[1];
  if (defaults === undefined) return undefined;
  // Each default is one line (`<property name="KEYS" type="string" value="COMMAND"/>`) or a line that
  // opens one with a child (startup-notify) and its closing line; vendor keys' are one-liners.
  const kept = defaults
    .split('\n')
    .filter((line) => !/^\s*<property name="(?:[^"]*&gt;)?(?:XF86[^"]*|HomePage)" [^>]*\/>\s*$/.test(line))
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-keyboard-shortcuts" version="1.0">
  <property name="commands" type="empty">
    <property name="custom" type="empty">
      <property name="override" type="bool" value="true"/>
${kept.map((line) => `      ${line}`).join('\n')}
    </property>
  </property>
</channel>
`;
}

/** A screensaver would blank the screen an agent looks at after ten idle minutes. */
const NO_SCREENSAVER = `[Desktop Entry]
Type=Application
Name=Screensaver
Hidden=true
`;

/** XFCE's preferred applications (the panel's launchers and exo-open). */
const HELPERS = `WebBrowser=chromium
TerminalEmulator=xfce4-terminal
FileManager=thunar
`;

/** Opening a file by type (xdg-open, exo-open, Thunar): text to Mousepad, web and PDF to Chromium. */
const MIME_DEFAULTS = `[Default Applications]
text/plain=org.xfce.mousepad.desktop
text/markdown=org.xfce.mousepad.desktop
text/x-python=org.xfce.mousepad.desktop
text/x-shellscript=org.xfce.mousepad.desktop
text/csv=org.xfce.mousepad.desktop
application/json=org.xfce.mousepad.desktop
application/xml=org.xfce.mousepad.desktop
text/html=chromium.desktop
application/xhtml+xml=chromium.desktop
application/pdf=chromium.desktop
image/png=chromium.desktop
image/jpeg=chromium.desktop
image/svg+xml=chromium.desktop
x-scheme-handler/http=chromium.desktop
x-scheme-handler/https=chromium.desktop
inode/directory=thunar.desktop
`;

const README = `This is a sandbay desktop (a Linux stand-in for a macOS VM), an XFCE session.
Applications menu (top left): Chromium (web browser), Terminal (xfce4-terminal), Mousepad (text
editor), Thunar (file manager). Open any file with its default application: xdg-open FILE.
`;

function skel(name: string, fallback: string): string {
  try {
    return readFileSync(join('/etc/skel', name), 'utf8');
  } catch {
    return fallback;
  }
}

/** The files of the template home, the same for every image of this driver. */
export function templateFiles(): TemplateFile[] {
  const shortcuts = keyboardShortcuts();
  return [
    ...(shortcuts === undefined
      ? []
      : [{ path: `${XFCONF}/xfce4-keyboard-shortcuts.xml`, content: shortcuts, mode: 0o644 }]),
    { path: '.profile', content: skel('.profile', 'PATH="$HOME/.local/bin:$PATH"\n'), mode: 0o644 },
    { path: '.bashrc', content: skel('.bashrc', ''), mode: 0o644 },
    { path: '.bash_logout', content: skel('.bash_logout', ''), mode: 0o644 },
    { path: `${XFCONF}/xfwm4.xml`, content: XFWM4, mode: 0o644 },
    { path: `${XFCONF}/xfce4-session.xml`, content: SESSION, mode: 0o644 },
    { path: '.config/autostart/xscreensaver.desktop', content: NO_SCREENSAVER, mode: 0o644 },
    { path: '.config/xfce4/helpers.rc', content: HELPERS, mode: 0o644 },
    { path: '.config/mimeapps.list', content: MIME_DEFAULTS, mode: 0o644 },
    // Chromium's first run is over before it starts: no welcome tab, no default-browser question.
    { path: '.config/chromium/First Run', content: '', mode: 0o644 },
    { path: 'Desktop/README.txt', content: README, mode: 0o644 },
    { path: 'Documents/.keep', content: '', mode: 0o644 },
    { path: 'Downloads/.keep', content: '', mode: 0o644 },
  ];
}

/** Identifies the template's content; a changed template gets new lower copies. */
export function templateStamp(files = templateFiles()): string {
  return createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 12);
}

/** Builds `<imagesDir>/<image>/template-<stamp>` once (root-owned); returns its path. */
export async function ensureTemplate(imagesDir: string, image: string): Promise<string> {
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
  await publish(tmp, dir);
  return dir;
}

/**
 * The template as owned by `uid:gid` (the VM user's lower layer), built once per user and template.
 * Callers must not remove a lower dir that a mounted home still uses. Copied off the server's
 * thread: a new slot's first boot comes right after a claim, and the synchronous copy held the event
 * loop 11–18 ms then (a CPU profile of bench/client-view.ts). The template is the machine's, root's,
 * out of every tenant's reach, so the copy on libuv's pool waits on no tenant.
 */
export async function ensureUserLower(
  imagesDir: string,
  image: string,
  uid: number,
  gid: number,
): Promise<string> {
  const template = await ensureTemplate(imagesDir, image);
  const dir = join(imagesDir, image, 'lower', `${uid}-${template.slice(template.lastIndexOf('-') + 1)}`);
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  await mkdir(dirname(tmp), { recursive: true, mode: 0o700 });
  await cp(template, tmp, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
  await chownTree(tmp, uid, gid);
  await publish(tmp, dir);
  return dir;
}

/** Moves a fully built dir into place; if a concurrent builder got there first, keeps theirs. */
async function publish(tmp: string, dir: string): Promise<void> {
  try {
    await rename(tmp, dir);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw e;
  }
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await lchown(dir, uid, gid);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await chownTree(p, uid, gid);
    else await lchown(p, uid, gid);
  }
}
