// The guest-OS seam: which path a guest's `uname -s` selects, how agent exec enters a macOS GUI
// session (the command quoted, never spliced), and the window manager's list parsed.
import { describe, expect, it } from 'vitest';
import { guestOsOf, parseWmctrl, withTccHint } from './guest-os.ts';

describe('tart guest systems', () => {
  it('tells macOS from a Linux desktop by uname, and refuses what it does not know', () => {
    expect(guestOsOf('Darwin\n').name).toBe('macos');
    expect(guestOsOf('Linux\n').name).toBe('linux');
    expect(() => guestOsOf('FreeBSD\n')).toThrow(/unknown guest system "FreeBSD"/);
  });

  it('runs agent commands in the macOS GUI session through launchctl asuser, quoted', () => {
    const line = guestOsOf('Darwin').inSession(`echo "it's" $HOME; rm -rf /`);
    expect(line).toBe(
      `sudo -n launchctl asuser "$(id -u)" sudo -n -u "$(id -un)" /bin/zsh -c 'echo "it'\\''s" $HOME; rm -rf /'`,
    );
    expect(guestOsOf('Linux').inSession('xdotool getactivewindow')).toBe('xdotool getactivewindow');
  });

  it('reads wmctrl -lpG with the active window, leaving out sticky panels', () => {
    const text = [
      '0x00c00003 -1 1201   0    0    1280 24   vm xfce4-panel',
      '0x01400004  0 2345   300  300  250  150  vm red',
      '0x01600004  0 2399   0    0    484  164  vm a title  with  spaces',
      '_NET_ACTIVE_WINDOW(WINDOW): window id # 0x1600004',
    ].join('\n');
    expect(parseWmctrl(text)).toEqual([
      { role: 'window', name: 'red', x: 300, y: 300, width: 250, height: 150, id: '0x01400004', pid: 2345 },
      {
        role: 'window',
        name: 'a title  with  spaces',
        x: 0,
        y: 0,
        width: 484,
        height: 164,
        id: '0x01600004',
        pid: 2399,
        focused: true,
      },
    ]);
  });

  it('gives every TCC error code a hint naming what to grant, and leaves other failures as they are', () => {
    const cases: [string, RegExp][] = [
      ['execution error: Error: kAXErrorAPIDisabled (-25211): not trusted', /grant Accessibility/],
      ['osascript is not allowed assistive access. (-1719)', /grant Accessibility/],
      ['Not authorized to send Apple events to System Events. (-1743)', /grant Automation/],
      ['errAEEventWouldRequireUserConsent (-1744)', /allow Automation .* once/],
      ['A privilege violation occurred. (-10004)', /privileged Apple event/],
      ['ls: Desktop: Operation not permitted', /Full Disk Access/],
      ['kAXErrorCannotComplete (-25204)', /did not answer/],
      ['Could not switch to audit session 0x0: 1: Operation not permitted', /not logged in at the console/],
      ['no GUI session: the guest user did not log in', /not logged in at the console/],
    ];
    for (const [line, hint] of cases) expect(withTccHint(line)).toMatch(hint);
    expect(withTccHint('syntax error')).toBe('syntax error');
  });

  it('waits for the GUI session with a bound, on macOS for the console user and the Dock', () => {
    expect(guestOsOf('Darwin').sessionUp).toMatch(/stat -f %Su \/dev\/console.*pgrep -qxu .* Dock/);
    expect(guestOsOf('Darwin').sessionUp).toMatch(/-gt 600 .*exit 3/);
    expect(guestOsOf('Linux').sessionUp).toMatch(/_NET_SUPPORTING_WM_CHECK/);
  });
});
