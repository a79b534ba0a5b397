// X11Connection against real Xvfb servers (no VM): what the guest's long-running connection relies on.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestXvfb, type TestXvfb } from '../../test/support/test-xvfb.ts';
import { X11Connection } from './x11-connection.ts';

const servers: TestXvfb[] = [];
const connections: X11Connection[] = [];

/** An Xvfb on a free display, open to local clients (no -auth). */
async function startXvfb(): Promise<TestXvfb> {
  const xvfb = await startTestXvfb(['-screen', '0', '320x200x24', '-nolisten', 'tcp']);
  servers.push(xvfb);
  return xvfb;
}

async function open(x: TestXvfb): Promise<X11Connection> {
  const conn = await X11Connection.open(x.display, x.socket, { name: '', data: '' });
  connections.push(conn);
  return conn;
}

/** The server's own number for an atom, asked by a process of its own. */
function serverAtom(x: TestXvfb, name: string): number {
  const line = execFileSync('xlsatoms', ['-display', x.display, '-name', name], { encoding: 'utf8' });
  return Number(line.split('\t')[0]);
}

afterAll(async () => {
  for (const c of connections) c.client.stream.destroy();
  await Promise.all(servers.map((s) => s.stop()));
});

describe('X11Connection', () => {
  it('keeps each server’s atom numbers apart (x11 starts every client on one shared atom cache)', async () => {
    const [one, two] = await Promise.all([startXvfb(), startXvfb()]);
    const a = await open(one);
    const b = await open(two);
    // The servers number atoms in the order they are first interned: two now counts one ahead.
    await b.atom('SANDBAY_TEST_ONLY_ON_TWO');
    const onA = await a.atom('SANDBAY_TEST_SHARED');
    const onB = await b.atom('SANDBAY_TEST_SHARED');
    expect(onA).toBe(serverAtom(one, 'SANDBAY_TEST_SHARED'));
    expect(onB).toBe(serverAtom(two, 'SANDBAY_TEST_SHARED'));
    expect(onB).not.toBe(onA);
    // A connection opened later does not inherit numbers another connection learned.
    const a2 = await open(one);
    expect(await a2.atom('SANDBAY_TEST_ONLY_ON_TWO')).toBe(serverAtom(one, 'SANDBAY_TEST_ONLY_ON_TWO'));
  });
});
