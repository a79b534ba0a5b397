// The `tart` host driver: Mac minis over SSH, each VM through Tart's command line. See docs/mac.md.
import { join } from 'node:path';
import { DriverError, type Driver, type Host, type HostRef } from '../driver.ts';
import { readCredentials } from './credentials.ts';
import { TartHost } from './host.ts';
import { Mac } from './mac.ts';

export interface TartDriverOptions {
  /** Holds `tart/credentials/<credentialsRef>/` and `tart/known_hosts/`. */
  dataDir: string;
  /** Deadline of each boot step, in seconds (default 60): `tart run`'s VNC line, `tart ip`, the guest. */
  bootTimeoutS?: number;
}

export function createTartDriver(opts: TartDriverOptions): Driver {
  const hosts = new Map<string, { key: string; host: TartHost }>();
  const knownHosts = join(opts.dataDir, 'tart', 'known_hosts');
  return {
    kind: 'tart',
    host(ref: HostRef): Host {
      if (!/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(ref.name)) {
        throw new DriverError('invalid_argument', `bad Mini name ${JSON.stringify(ref.name)}`);
      }
      // The same Mini keeps its connection; a changed address or credentials gets a new one.
      const key = `${ref.address}|${ref.model}|${ref.credentialsRef ?? ''}`;
      const known = hosts.get(ref.name);
      if (known?.key === key) return known.host;
      known?.host.close();
      // Read at every (re)connect, so a rotated key file takes effect without a restart.
      const credentials = () => readCredentials(opts.dataDir, ref.credentialsRef);
      const host = new TartHost(new Mac(ref, credentials, knownHosts), {
        guestCredentials: guestCredentials(credentials),
        recordingsDir: (vm) => join(opts.dataDir, 'tart', 'recordings', ref.name, vm),
        ...(opts.bootTimeoutS !== undefined && { bootTimeoutS: opts.bootTimeoutS }),
      });
      hosts.set(ref.name, { key, host });
      return host;
    },
    async close() {
      for (const { host } of hosts.values()) host.close();
      hosts.clear();
    },
  };
}

/**
 * The guest user and key: `admin` (the user of Cirrus Labs' images) with the same key as the Mac,
 * which the operator's base image authorizes (docs/mac.md).
 */
function guestCredentials(mac: () => { privateKey: string }) {
  return () => ({ username: 'admin', privateKey: mac().privateKey });
}
