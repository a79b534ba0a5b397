import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLinuxDriver } from './index.ts';
import { keyboardShortcuts, templateFiles } from './image.ts';

describe('the desktop image', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-image-'));
  const driver = createLinuxDriver({ dataDir, discardOnClose: true });
  afterAll(async () => {
    await driver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('configures XFCE with one workspace, no screensaver, and default applications by type', () => {
    const files = new Map(templateFiles().map((f) => [f.path, f.content]));
    const xfwm4 = files.get('.config/xfce4/xfconf/xfce-perchannel-xml/xfwm4.xml');
    expect(xfwm4).toMatch(/name="workspace_count" type="int" value="1"/);
    expect(files.get('.config/autostart/xscreensaver.desktop')).toMatch(/^Hidden=true$/m);
    expect(files.get('.config/mimeapps.list')).toMatch(/^text\/plain=org\.xfce\.mousepad\.desktop$/m);
    expect(files.has('.config/chromium/First Run')).toBe(true);
  });

  it("keeps XFCE's shortcuts but those on vendor keys, whose keycodes the driver binds characters to", () => {
    const shortcuts = keyboardShortcuts();
    expect(shortcuts).toContain('<property name="override" type="bool" value="true"/>');
    expect(shortcuts).toContain('value="exo-open --launch TerminalEmulator"');
    expect(shortcuts).not.toMatch(/XF86|HomePage/);
    expect(keyboardShortcuts('/nonexistent.xml')).toBeUndefined();
  });

  it('keeps one desktop: a wheel scroll on the desktop does not switch away from the windows', async () => {
    const host = driver.host({ name: 'image-test', address: '127.0.0.1', model: 'm4' });
    await host.createVm({ name: 'img', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    await host.startVm('img');
    const guest = host.guest('img');
    await guest.scroll(640, 400, 'up', 3);
    await guest.scroll(640, 400, 'down', 3);
    const props = await guest.exec('xprop -root _NET_NUMBER_OF_DESKTOPS _NET_CURRENT_DESKTOP');
    expect(props.stdout).toContain('_NET_NUMBER_OF_DESKTOPS(CARDINAL) = 1');
    expect(props.stdout).toContain('_NET_CURRENT_DESKTOP(CARDINAL) = 0');
  });
});
