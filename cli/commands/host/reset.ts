import { Command, Flags } from '@oclif/core';

export default class HostReset extends Command {
  static override summary =
    'Remove every VM the linux driver made on this machine: users, mounts, cgroups, claims.';
  static override description =
    'For each VM slot no running sandbay process holds: kills the VM user’s processes, unmounts its home and ' +
    'disk, removes its cgroup, temp files, IPC objects and keys, deletes the user (sbvmN) and its empty home ' +
    'mount point, and drops the claim. Users, mounts and cgroups the driver did not make are never touched. ' +
    'VM records in data dirs are left; a server started later finds those VMs gone. Needs root.';
  static override examples = ['<%= config.bin %> host reset', '<%= config.bin %> host reset --force'];

  static override flags = {
    force: Flags.boolean({
      description: 'also remove the VMs of running sandbay processes (they lose them)',
      default: false,
    }),
    'user-prefix': Flags.string({
      description: 'VM users are <prefix>N (the driver option userPrefix)',
      default: 'sbvm',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(HostReset);
    const { resetMachine } = await import('../../../hosts/linux/machine-reset.ts');
    const r = await resetMachine({
      force: flags.force,
      userPrefix: flags['user-prefix'],
      log: (line) => this.log(line),
    });
    this.log(
      `removed ${r.users.length} VM users, ${r.mounts.length} mounts, ${r.cgroups.length} cgroups, ` +
        `${r.claims.length} claims` +
        (r.skipped.length > 0
          ? `; left ${r.skipped.length} slots held by running processes (${r.skipped.join(', ')})`
          : ''),
    );
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
