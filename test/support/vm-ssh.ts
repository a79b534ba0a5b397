// One command over SSH as a linux VM's user, the way a tenant logs in (its key, its address): what
// driver tests read a VM's state back with.
import { Client } from 'ssh2';

export interface VmLogin {
  ip: string;
  sshPort: number;
  user: string;
  sshPrivateKey: string;
}

export function sshExec(
  vm: VmLogin,
  command: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.on('error', reject);
    c.on('ready', () => {
      c.exec(command, (err, ch) => {
        if (err) return reject(err);
        let stdout = '';
        let stderr = '';
        ch.on('data', (b: Buffer) => (stdout += b.toString()));
        ch.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        ch.on('close', (code: number) => {
          c.end();
          resolve({ code, stdout, stderr });
        });
      });
    });
    c.connect({
      host: vm.ip,
      port: vm.sshPort,
      username: vm.user,
      privateKey: vm.sshPrivateKey,
      readyTimeout: 5000,
    });
  });
}
