// The flags of a process that serves the APIs (`server`, `api`), and the startServer options they give.
import { Flags } from '@oclif/core';
import { DRIVERS } from '../../../crds/index.ts';

export const listenerFlags = {
  port: Flags.integer({ description: 'customer API port', default: 8080, min: 0, max: 65535 }),
  'admin-port': Flags.integer({
    description: 'admin API port (HTTP and HTTPS)',
    default: 8081,
    min: 0,
    max: 65535,
  }),
  'host-driver': Flags.string({ description: 'how VMs are run', options: [...DRIVERS], default: 'linux' }),
  'audit-log': Flags.string({
    description: 'append an audit line per Kubernetes API request to this file',
  }),
  host: Flags.string({ description: 'address the customer listener binds', default: '127.0.0.1' }),
  'admin-host': Flags.string({
    description: 'address the admin listener binds (the admin key travels in clear only from loopback)',
    default: '127.0.0.1',
  }),
  'min-free-mib': Flags.integer({
    description: 'refuse new snapshots, recordings and uploads while less is free in the data dir',
    default: 1024,
    min: 0,
  }),
  'rate-limit': Flags.integer({
    description: 'requests per API key per minute on the customer listener (0: no limit)',
    default: 6000,
    min: 0,
  }),
  'setup-fetch-allow': Flags.string({
    description:
      'a CIDR that `download` setup steps may fetch from although it is not public (repeatable; docs/evaluation.md)',
    multiple: true,
  }),
};

export function listenerOptions(flags: {
  port: number;
  'admin-port': number;
  'host-driver': string;
  'audit-log'?: string | undefined;
  host: string;
  'admin-host': string;
  'min-free-mib': number;
  'rate-limit': number;
  'setup-fetch-allow'?: string[] | undefined;
}) {
  return {
    port: flags.port,
    adminPort: flags['admin-port'],
    hostDriver: flags['host-driver'] as (typeof DRIVERS)[number],
    host: flags.host,
    adminHost: flags['admin-host'],
    minFreeBytes: flags['min-free-mib'] * 1024 * 1024,
    rateLimitPerMinute: flags['rate-limit'],
    ...(flags['audit-log'] !== undefined && { auditLog: flags['audit-log'] }),
    ...(flags['setup-fetch-allow'] !== undefined && { setupFetchAllow: flags['setup-fetch-allow'] }),
  };
}
