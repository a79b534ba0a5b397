// What an operator does by hand on a Mac mini, `ssh root@mac '…'` with the fleet's key, for tests of
// what sandbay makes of it (a VM the operator clones and runs beside sandbay's own).
import { join } from 'node:path';
import { runProcess, type ProcessRun } from '../process.ts';
import type { EmulatedMac } from './macs.ts';

/**
 * One command line on the Mac over a real SSH login; the fleet's key is its root's `control_key`.
 * Homebrew's dir goes on PATH first, as an operator's `.zprofile` puts it for a login shell.
 */
export function onMac(mac: EmulatedMac, command: string): Promise<ProcessRun> {
  const key = join(mac.dir, '..', '..', 'control_key');
  return runProcess('ssh', [
    '-i', key,
    '-o', 'StrictHostKeyChecking=no',
    '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'LogLevel=ERROR',
    '-o', 'BatchMode=yes',
    '-o', 'ConnectTimeout=10',
    `root@${mac.address}`,
    `PATH=/opt/homebrew/bin:$PATH; ${command}`,
  ]); // prettier-ignore
}

/** Runs `command` on the Mac, throwing with what it printed unless it exits 0. */
export async function onMacOk(mac: EmulatedMac, command: string): Promise<string> {
  const r = await onMac(mac, command);
  if (r.code !== 0) throw new Error(`on ${mac.name}: ${command}: exit ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** A detached `tart run` of an existing VM, as an operator starts one by hand; resolves once it has an address. */
export async function runByHand(mac: EmulatedMac, name: string): Promise<void> {
  await onMacOk(
    mac,
    `(setsid nohup tart run ${name} --no-graphics --vnc-experimental > /dev/null 2>&1 < /dev/null &) && ` +
      `tart ip ${name} --wait 60`,
  );
}
