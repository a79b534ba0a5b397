import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLinuxDriver } from './index.ts';
import { openboxRc, templateFiles } from './image.ts';

describe('the desktop image', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-image-'));
  const driver = createLinuxDriver({ dataDir, discardOnClose: true });
  afterAll(async () => {
    await driver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("configures openbox with one desktop, from the system's own rc.xml", () => {
    const rc = openboxRc();
    expect(rc).toMatch(/<desktops>[\s\S]*?<number>1<\/number>/);
    expect(templateFiles().map((f) => f.path)).toContain('.config/openbox/rc.xml');
    expect(openboxRc('/nonexistent/rc.xml')).toBeUndefined();
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
