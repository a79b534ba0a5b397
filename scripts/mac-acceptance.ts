// The first-Mac acceptance run (scripts/mac-acceptance.sh says how to call it). Each check asks the
// Mac one thing no source settles and records what it answered, never failing the run: a row says
// what happened, or the error. The VMs are the driver's own (createTartDriver, as the operator makes
// them: Softnet, sealed clones); the few things the driver does not do (raw RFB greetings, the
// listen address, `tart suspend`) go over a second SSH connection to the Mac.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import type { Guest, Host } from '../hosts/driver.ts';
import { shellQuote } from '../hosts/linux/ssh-client.ts';
import { writeCredentials } from '../hosts/tart/credentials.ts';
import { createTartDriver } from '../hosts/tart/index.ts';
import { Mac } from '../hosts/tart/mac.ts';
import { RfbClient } from '../hosts/tart/rfb-client.ts';
import { MAC_MODELS, type MacModel } from '../crds/meta.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    user: { type: 'string', default: userInfo().username },
    key: { type: 'string', default: join(homedir(), '.ssh', 'id_ed25519') },
    model: { type: 'string', default: 'm4' },
    image: { type: 'string', default: 'base-macos-26' },
  },
});
const address = positionals[0];
if (!address || !(MAC_MODELS as readonly string[]).includes(values.model)) {
  process.stderr.write(
    `usage: scripts/mac-acceptance.sh HOST [--user USER] [--key FILE] [--model ${MAC_MODELS.join('|')}] [--image IMAGE]\n`,
  );
  process.exit(64);
}

const rows: [string, string][] = [];
const say = (line: string) => process.stderr.write(`mac-acceptance: ${line}\n`);
/** Runs one check; its answer (or its error) is the row. */
async function check(name: string, run: () => Promise<string>): Promise<void> {
  say(name);
  let answer: string;
  try {
    answer = await run();
  } catch (e) {
    answer = `error: ${(e as Error).message}`;
  }
  rows.push([name, answer.replaceAll('|', '\\|').replaceAll('\n', ' ')]);
}

const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-mac-acceptance-'));
writeCredentials(dataDir, 'acceptance', {
  username: values.user,
  privateKey: readFileSync(values.key, 'utf8'),
});
const ref = { name: 'acceptance', address, model: values.model as MacModel, credentialsRef: 'acceptance' };
const driver = createTartDriver({ dataDir });
const host: Host = driver.host(ref);
const mac = new Mac(
  ref,
  () => ({ username: values.user, privateKey: readFileSync(values.key, 'utf8') }),
  join(dataDir, 'tart', 'known_hosts'),
);
const suffix = Date.now().toString(36);
const [A, B, C] = ['a', 'b', 'c'].map((v) => `sandbay-acceptance-${v}-${suffix}`) as [string, string, string];
/** A colour no theme draws by chance; both byte orders of it differ. */
const COLOUR = [0xe0, 0x40, 0x10] as const;

/** A command on the Mac, as the driver runs them (Homebrew on PATH); stdout and stderr together. */
async function onMac(line: string): Promise<{ code: number; out: string }> {
  const r = await mac.sh(line, 60_000);
  return { code: r.code, out: `${r.stdout}${r.stderr}`.trim() };
}

async function ok(g: Guest, command: string, agent = false): Promise<string> {
  const r = await g.exec(command, { timeoutMs: 60_000, ...(agent && { agent: true }) });
  if (r.return_code !== 0) throw new Error(`${command}: exit ${r.return_code}: ${r.stderr.trim()}`);
  return r.stdout;
}

async function until(what: string, test: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test().catch(() => false))) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** An RFB session of our own to the VM's screen (the driver's client), through the Mac. */
async function rfb(g: Guest): Promise<RfbClient> {
  const { password } = await g.vnc();
  return RfbClient.connect(await g.openStream!('vnc'), password);
}

/** The server's greeting and security types, read raw (RFB 3.8 handshake, then closed). */
async function greeting(stream: Duplex): Promise<string> {
  const chunks: Buffer[] = [];
  const read = (n: number) =>
    new Promise<Buffer>((resolve, reject) => {
      const take = () => {
        const all = Buffer.concat(chunks);
        if (all.length < n) return;
        stream.off('data', onData);
        chunks.splice(0, chunks.length, all.subarray(n));
        resolve(all.subarray(0, n));
      };
      const onData = (b: Buffer) => {
        chunks.push(b);
        take();
      };
      stream.on('data', onData);
      stream.once('error', reject);
      take();
    });
  const version = (await read(12)).toString('latin1').trim();
  stream.write('RFB 003.008\n');
  const count = (await read(1))[0]!;
  const types = count === 0 ? ['refused'] : [...(await read(count))].map(String);
  stream.destroy();
  return `${version}; security types ${types.join(', ')} (2 = VNC password)`;
}

/** The pixel at the screen's centre, as R,G,B. */
async function centre(c: RfbClient): Promise<number[]> {
  const f = await c.capture();
  const at = (Math.floor(f.height / 2) * f.width + Math.floor(f.width / 2)) * 4;
  return [...f.data.subarray(at, at + 3)];
}

/** Opens a terminal window in the guest running `script` (sh), titled `title`, and gives it the focus. */
/** Opens a terminal running `script`, focused; answers a point inside its text area. */
async function terminal(
  g: Guest,
  os: string,
  title: string,
  script: string,
  colour = '',
): Promise<{ x: number; y: number }> {
  if (os === 'Darwin') {
    const as = [
      `tell application "Terminal" to do script ${JSON.stringify(script)}`,
      `tell application "Terminal" to set custom title of front window to ${JSON.stringify(title)}`,
      // Zoomed: the screen's centre is in it.
      'tell application "Terminal" to set zoomed of front window to true',
      'tell application "Terminal" to activate',
    ];
    await ok(g, `osascript ${as.map((l) => `-e ${shellQuote(l)}`).join(' ')}`, true);
    return { x: 640, y: 400 };
  }
  const look = colour
    ? `-bg ${shellQuote(colour)} -fg ${shellQuote(colour)} -geometry 400x200+0+0`
    : '-geometry 80x10+0+0';
  await ok(
    g,
    `(LANG=C.UTF-8 xterm -u8 -T ${title} ${look} -e sh -c ${shellQuote(script)} >/dev/null 2>&1 &)`,
  );
  let id = '';
  await until(`${title} shown`, async () => {
    id = (await g.exec(`xdotool search --onlyvisible --name '^${title}$'`)).stdout.trim().split('\n')[0]!;
    return id !== '';
  });
  // The middle of its text area, wherever the window manager put it (below a panel, under its title
  // bar): a wheel over the title bar rolls the window up instead of scrolling it.
  const geometry = (await g.exec(`xdotool getwindowgeometry --shell ${id}`)).stdout;
  const field = (name: string) => Number(new RegExp(`^${name}=(\\d+)$`, 'm').exec(geometry)?.[1] ?? NaN);
  const centre = {
    x: field('X') + Math.floor(field('WIDTH') / 2),
    y: field('Y') + Math.floor(field('HEIGHT') / 2),
  };
  if (!Number.isFinite(centre.x) || !Number.isFinite(centre.y))
    throw new Error(`${title}: no geometry in ${JSON.stringify(geometry)}`);
  if (!colour) await g.click(centre.x, centre.y);
  await until(
    `${title} focused`,
    async () => (await g.exec('xdotool getwindowfocus getwindowname')).stdout === `${title}\n`,
  );
  return centre;
}

async function main(): Promise<void> {
  await check('Mac', async () => {
    const info = await host.info();
    const tart = await onMac('tart --version; sw_vers -productVersion 2>/dev/null; uname -m');
    return `${info.cores} cores, ${Math.round(info.memoryGiB)} GiB; tart ${tart.out.split('\n').join(', ')}`;
  });
  for (const vm of [A, B]) await host.createVm({ name: vm, image: values.image, cpu: 2, memoryGiB: 4 });
  await Promise.all([host.startVm(A), host.startVm(B)]);
  const a = host.guest(A);
  const b = host.guest(B);
  const os = (await ok(a, 'uname -s')).trim();
  const vnc = await a.vnc();

  await check('RFB version and security types', async () => greeting(await a.openStream!('vnc')));
  await check('VNC listen address', async () => {
    const r = await onMac(
      `lsof -nP -iTCP:${vnc.port} -sTCP:LISTEN 2>/dev/null | awk 'NR > 1 { print $9 }' | sort -u | grep . || ` +
        `ss -Hltn 'sport = :${vnc.port}' | awk '{ print $4 }'`,
    );
    return r.out || `nothing listens on ${vnc.port}?`;
  });
  await check('Encodings the server used (asked: ZRLE, Raw, DesktopSize, Cursor)', async () => {
    const c = await rfb(a);
    try {
      const f = await c.capture();
      const names: Record<number, string> = { 0: 'Raw', 16: 'ZRLE' };
      const used = [...c.encodingsUsed].map((e) => names[e] ?? String(e));
      return `${used.join(', ')}; ${f.width}x${f.height}; cursor shape ${c.cursor ? 'sent' : 'not sent'}`;
    } finally {
      c.close();
    }
  });
  await check('SetPixelFormat honoured (a known colour at the centre)', async () => {
    await terminal(a, os, 'accept-colour', 'sleep 30', '#e04010');
    const c = await rfb(a);
    try {
      let seen: number[] = [];
      await until('the colour on screen', async () => {
        seen = await centre(c);
        return seen.every((v, i) => Math.abs(v - COLOUR[i]!) <= 12) || seen[0] === COLOUR[2];
      });
      const honoured = seen.every((v, i) => Math.abs(v - COLOUR[i]!) <= 12);
      return `${honoured ? 'yes' : 'NO (bytes swapped)'}: drew ${COLOUR.join(',')}, read ${seen.join(',')}`;
    } finally {
      c.close();
      await a.exec(
        os === 'Darwin' ? 'osascript -e \'tell application "Terminal" to quit\'' : "pkill -f 'accept-colour'",
        { agent: os === 'Darwin' },
      );
    }
  });
  await check('Two VNC clients at once', async () => {
    const [one, two] = [await rfb(a), await rfb(a)];
    try {
      const [f1, f2] = [await one.capture(), await two.capture()];
      return `both answered (${f1.width}x${f1.height}, ${f2.width}x${f2.height}); first still open: ${one.alive}`;
    } finally {
      one.close();
      two.close();
    }
  });
  await check('Wheel scrolling (5 steps up over a terminal with 500 lines)', async () => {
    const over = await terminal(a, os, 'accept-scroll', 'seq 1 500; sleep 60');
    const c = await rfb(a);
    try {
      const before = (await c.capture()).data;
      // Over the terminal's text (zoomed on macOS).
      await a.scroll(over.x, over.y, 'up', 5);
      let moved = false;
      // The redraw reaches the screen as the others' do: within the checks' usual bound (x11vnc, which
      // the emulated Mac's server relays, polls the screen; on a loaded machine 5 s was too short).
      await until('the view scrolled', async () => (moved = !(await c.capture()).data.equals(before))).catch(
        () => undefined,
      );
      return moved ? 'the view moved' : 'NO: the screen did not change';
    } finally {
      c.close();
      await a.exec(
        os === 'Darwin' ? 'osascript -e \'tell application "Terminal" to quit\'' : "pkill -f 'accept-scroll'",
        { agent: os === 'Darwin' },
      );
    }
  });
  const shifted = "Hello_World & 'Mac' ?!";
  await check(
    'Shift and Command: typed text (Shift held for upper case and symbols; Unicode pasted with Command-V)',
    async () => {
      const file = 'accept-typed.txt';
      await ok(a, `rm -f ${file}`);
      await terminal(a, os, 'accept-typer', `stty -icanon -iexten -echo; cat >> ${file}`);
      const text = `${shifted} ✓ café\n`;
      await a.type(text);
      let got = '';
      await until('the typed text', async () => (got = await ok(a, `cat ${file}`)) === text, 15_000).catch(
        () => undefined,
      );
      await ok(a, `printf %s command-v | pbcopy && : > ${file}`, os === 'Darwin');
      await a.hotkey('cmd+v');
      let pasted = '';
      await until(
        'Command-V',
        async () => (pasted = await ok(a, `cat ${file}`)) === 'command-v',
        15_000,
      ).catch(() => undefined);
      return `typed ${got === text ? 'exactly' : `WRONG: ${JSON.stringify(got)}`}; cmd+v ${pasted === 'command-v' ? 'pasted' : `did NOT paste: ${JSON.stringify(pasted)}`}`;
    },
  );
  const ipB = (await b.ssh()).host;
  await check('Hostile tenant: from VM a to VM b (sshd, screen sharing)', async () => {
    // perl: on macOS and Linux guests alike (macOS has no timeout(1), a Linux guest may lack nc).
    const probe = (port: number) =>
      `perl -MIO::Socket::INET -e 'print "${port}: ", (IO::Socket::INET->new(PeerAddr => "${ipB}:${port}", Timeout => 3) ? "open" : "closed ($!)"), "\\n"'`;
    const r = await a.exec(`${probe(22)}; ${probe(5900)}`, { timeoutMs: 30_000 });
    return `${r.stdout}${r.stderr}`.trim().split('\n').join(', ');
  });
  await check("Hostile tenant: b's SSH logins offered to the Mac", async () => {
    const r = await onMac(
      `ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5 ` +
        `-o PubkeyAuthentication=no admin@${ipB} true 2>&1 | grep -o 'Permission denied.*' || echo 'no refusal?'`,
    );
    return r.out;
  });
  await check(
    'Hostile tenant: processes a VM sees',
    async () => `${(await ok(a, 'ps ax | wc -l')).trim()} processes in a`,
  );

  await check('Snapshot round trip (written during it, restored on a fresh clone, fsck)', async () => {
    await ok(a, 'printf acceptance > accept-marker.txt');
    await host.deleteVm(B);
    const file = join(dataDir, 'a.delta');
    const started = Date.now();
    const delta = await host.exportDelta(A, file);
    const took = ((Date.now() - started) / 1000).toFixed(0);
    await host.createVm({ name: C, image: values.image, cpu: 2, memoryGiB: 4 });
    await host.importDelta(C, file);
    const fsck = await onMac(
      os === 'Darwin'
        ? `out=$(hdiutil attach -nomount -imagekey diskimage-class=CRawDiskImage ~/.tart/vms/${C}/disk.img) || exit $?; ` +
            `disk=$(printf '%s\n' "$out" | awk 'NR == 1 { print $1 }'); ` +
            `store=$(printf '%s\n' "$out" | awk '$2 == "Apple_APFS" { print $1; exit }'); ` +
            `fsck_apfs -n "$store"; r=$?; hdiutil detach "$disk" >/dev/null 2>&1; exit $r`
        : `e2fsck -fn "\${TART_HOME:-$HOME/.tart}/vms/${C}/disk.img"`,
    );
    await host.stopVm(A);
    await host.startVm(C);
    const marker = await ok(host.guest(C), 'cat accept-marker.txt');
    return `delta ${JSON.stringify(delta)} in ${took} s; fsck exit ${fsck.code}; marker ${marker === 'acceptance' ? 'restored' : 'MISSING'}`;
  });
  await check('tart suspend, then resume and VNC input', async () => {
    await host.stopVm(C);
    // Detached as the driver starts VMs (its own session: it outlives this SSH channel).
    const log = `/tmp/${C}.log`;
    const run =
      `nohup perl -MPOSIX -e 'POSIX::setsid(); exec @ARGV' tart run ${C} --no-graphics --vnc-experimental ` +
      `--net-softnet --suspendable > ${log} 2>&1 < /dev/null & pid=$!\n` +
      `i=0; until grep -q '^VNC server is running at ' ${log}; do ` +
      `kill -0 $pid 2>/dev/null && [ $i -lt 600 ] || { cat ${log}; exit 1; }; i=$((i+1)); sleep 0.1; done; ` +
      `grep '^VNC' ${log} | tail -1`;
    const first = await onMac(run);
    if (first.code !== 0) return `tart run --suspendable failed: ${first.out}`;
    const suspended = await onMac(`tart suspend ${C}`);
    if (suspended.code !== 0) return `tart suspend: exit ${suspended.code}: ${suspended.out}`;
    // `tart suspend` only signals the run, which saves the VM's memory and exits: the VM is
    // suspended once `tart get` says so.
    const saved = await onMac(
      `i=0; until tart get ${C} --format json | grep -q '"State" : "suspended"'; do ` +
        `i=$((i+1)); [ $i -lt 1800 ] || { cat ${log}; exit 124; }; sleep 0.1; done`,
    );
    if (saved.code !== 0) return `tart suspend: not suspended within 180 s: ${saved.out}`;
    const again = await onMac(run);
    const m = /vnc:\/\/:([^@]*)@([\d.]+):(\d+)/.exec(again.out);
    if (!m) return `resumed, but no VNC line: ${again.out}`;
    const c = await RfbClient.connect(await mac.forward(m[2]!, Number(m[3])), m[1]!);
    try {
      await c.capture();
      // A click and a key after the resume: the session must take them (what they do in the guest
      // is for the operator to see on the screen).
      c.pointer(640, 400, 1);
      c.pointer(640, 400, 0);
      c.key(0xff1b, true);
      c.key(0xff1b, false);
      await c.capture();
      return `suspended and resumed; after the resume the RFB session (${c.width}x${c.height}) took a click and a key: ${c.alive}`;
    } finally {
      c.close();
    }
  });
}

try {
  await main();
} catch (e) {
  rows.push(['(run stopped)', `error: ${(e as Error).message}`]);
} finally {
  say('cleaning up');
  for (const vm of [A, B, C]) await host.deleteVm(vm).catch(() => undefined);
  await mac.sh(`rm -f /tmp/${C}.log`).catch(() => undefined);
  await driver.close();
  mac.close();
  // At exit: a connection that closes late still reads its credentials from there.
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
}
process.stdout.write(
  `| Check | ${address} |\n| --- | --- |\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`,
);
