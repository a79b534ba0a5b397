// The real kubectl (from PATH) against a real sandbay server: discovery, apply, get (table, YAML,
// watch), patch (merge, JSON, status), delete, and errors as Status objects.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../api/server.ts';
import { runProcess, type ProcessRun } from './support/process.ts';

let dir: string;
let server: RunningServer;
let token: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-kubectl-'));
  server = await startServer({
    dataDir: join(dir, 'data'),
    port: 0,
    adminPort: 0,
    hostDriver: 'sim',
    logger: pino({ level: 'silent' }),
  });
  token = (await readFile(server.adminKeyFile, 'utf8')).trim();
  // A kubeconfig and home of its own: nothing of the machine's kubectl setup leaks in.
  await writeFile(join(dir, 'kubeconfig'), '');
  env = { ...process.env, HOME: dir, KUBECONFIG: join(dir, 'kubeconfig') };
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

function kubectlArgs(args: string[]): string[] {
  return [
    `--server=${server.adminHttpsUrl}`,
    `--certificate-authority=${server.adminCaFile}`,
    `--token=${token}`,
    `--cache-dir=${join(dir, 'cache')}`,
    ...args,
  ];
}

function kubectl(args: string[], stdin?: string): Promise<ProcessRun> {
  return runProcess('kubectl', kubectlArgs(args), { env, ...(stdin !== undefined && { stdin }) });
}

const MINI = `apiVersion: sandbay.io/v1alpha1
kind: Mini
metadata:
  name: mini-1
  labels:
    rack: a
spec:
  address: 127.0.0.1
  model: m4
  driver: linux
`;

describe('kubectl against sandbay', () => {
  it('discovers the sandbay.io kinds with their short names and scope', async () => {
    const res = await kubectl(['api-resources', '--api-group=sandbay.io', '--no-headers']);
    expect(res.stderr).toBe('');
    const lines = res.stdout.trim().split('\n');
    expect(lines.find((l) => l.startsWith('minis '))).toMatch(
      /^minis\s+mini\s+sandbay.io\/v1alpha1\s+false\s+Mini$/,
    );
    expect(lines.find((l) => l.startsWith('sandboxes '))).toMatch(
      /sb\s+sandbay.io\/v1alpha1\s+true\s+Sandbox$/,
    );
  });

  it('explains every field: kubectl explain minis.spec shows the schema descriptions', async () => {
    const res = await kubectl(['explain', 'minis.spec']);
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('What is wanted of this Mini');
    expect(res.stdout).toMatch(
      /address\s+<string> -required-\s+user \(operator\/Pulumi\): the Mac's address/,
    );
    expect(res.stdout).not.toContain('<no description>');
    const status = await kubectl(['explain', 'sandboxes.status.phase']);
    expect(status.stdout).toContain('`booting`');
  });

  it('round-trips a Mini: apply, get, get -o yaml, get -w, delete', async () => {
    const file = join(dir, 'mini.yaml');
    await writeFile(file, MINI);
    const applied = await kubectl(['apply', '-f', file]);
    expect(applied).toMatchObject({ code: 0, stdout: 'mini.sandbay.io/mini-1 created\n' });
    expect((await kubectl(['apply', '-f', file])).stdout).toBe('mini.sandbay.io/mini-1 unchanged\n');

    const table = await kubectl(['get', 'minis']);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'ADDRESS', 'MODEL', 'DRIVER', 'PHASE', 'LAYOUT', 'AGE']);
    // PHASE fills in once the operator has probed the Mini (a linux Mini on a sim server: down).
    expect(row).toMatch(/^mini-1\s+127\.0\.0\.1\s+m4\s+linux\s+(\S+\s+)*\d+s$/);

    const yaml = parseYaml((await kubectl(['get', 'mini', 'mini-1', '-o', 'yaml'])).stdout);
    expect(yaml.spec).toEqual({ address: '127.0.0.1', model: 'm4', driver: 'linux', schedulable: true });
    expect(yaml.metadata.labels).toEqual({ rack: 'a' });
    expect(yaml.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain(
      '"rack":"a"',
    );

    // A changed manifest goes through kubectl's client-side apply (merge patch for custom resources).
    await writeFile(file, MINI.replace('model: m4', 'model: m4-pro'));
    expect((await kubectl(['apply', '-f', file])).stdout).toBe('mini.sandbay.io/mini-1 configured\n');

    const watch = spawn('kubectl', kubectlArgs(['get', 'minis', '-w', '--no-headers']), { env });
    try {
      let seen = '';
      const lineMatching = (re: RegExp) =>
        new Promise<void>((resolve, reject) => {
          const check = () => (re.test(seen) ? resolve() : undefined);
          watch.stdout.on('data', (c: Buffer) => {
            seen += c.toString();
            check();
          });
          watch.on('close', () => reject(new Error(`kubectl get -w ended; saw:\n${seen}`)));
          check();
        });
      await lineMatching(/mini-1\s+127\.0\.0\.1\s+m4-pro/);
      await kubectl(['patch', 'mini', 'mini-1', '--type=merge', '-p', '{"spec":{"address":"127.0.0.7"}}']);
      await lineMatching(/mini-1\s+127\.0\.0\.7\s+m4-pro/);
    } finally {
      watch.kill();
    }

    const deleted = await kubectl(['delete', 'mini', 'mini-1']);
    expect(deleted).toMatchObject({ code: 0, stdout: 'mini.sandbay.io "mini-1" deleted\n' });
    const gone = await kubectl(['get', 'mini', 'mini-1']);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): minis.sandbay.io "mini-1" not found');
  });

  it('writes status through the status subresource and patches with a JSON patch', async () => {
    // A Task: no reconciler writes its status, so what kubectl wrote is what it reads back.
    const task = `apiVersion: sandbay.io/v1alpha1
kind: Task
metadata:
  name: t1
spec:
  instruction: open the editor
  category: web
`;
    expect((await kubectl(['apply', '-n', 'acct-2', '-f', '-'], task)).code).toBe(0);
    const status = await kubectl([
      'patch',
      'task',
      't1',
      '-n',
      'acct-2',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"ready"}}',
    ]);
    expect(status).toMatchObject({ code: 0 });
    const ops = '[{"op":"replace","path":"/spec/category","value":"docs"}]';
    expect((await kubectl(['patch', 'task', 't1', '-n', 'acct-2', '--type=json', '-p', ops])).code).toBe(0);
    const row = (await kubectl(['get', 'task', 't1', '-n', 'acct-2', '--no-headers'])).stdout;
    expect(row).toMatch(/^t1\s+docs\s+ready\s+/);
  });

  it('handles namespaced kinds: apply in a namespace, list across namespaces', async () => {
    const reservation = `apiVersion: sandbay.io/v1alpha1
kind: Reservation
metadata:
  name: r1
spec:
  hours: 24
  miniCount: 1
  macModel: m4
  vmLayout: split
`;
    expect((await kubectl(['apply', '-n', 'acct-1', '-f', '-'], reservation)).stdout).toBe(
      'reservation.sandbay.io/r1 created\n',
    );
    const all = (await kubectl(['get', 'rsv', '-A', '--no-headers'])).stdout;
    expect(all).toMatch(/^acct-1\s+r1\s+m4\s+1\s+24\s+split\s+/);
  });

  it('applies server-side: creates, answers a conflict with another manager, forces it', async () => {
    const ssa = MINI.replace('name: mini-1', 'name: mini-ssa');
    const created = await kubectl(['apply', '--server-side', '-f', '-'], ssa);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('mini.sandbay.io/mini-ssa serverside-applied');
    const other = ssa.replace('model: m4', 'model: m4-pro');
    const refused = await kubectl(['apply', '--server-side', '--field-manager=ops', '-f', '-'], other);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.model');
    const forced = await kubectl(
      ['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'],
      other,
    );
    expect(forced.stderr).toBe('');
    const got = await kubectl(['get', 'mini', 'mini-ssa', '-o', 'json', '--show-managed-fields']);
    const obj = JSON.parse(got.stdout) as {
      spec: { model: string };
      metadata: { managedFields: { manager: string; operation: string; fieldsV1: object }[] };
    };
    expect(obj.spec.model).toBe('m4-pro');
    const owners = Object.fromEntries(obj.metadata.managedFields.map((m) => [m.manager, m.fieldsV1]));
    expect(owners.ops).toEqual({
      'f:metadata': { 'f:labels': { 'f:rack': {} } },
      'f:spec': { 'f:address': {}, 'f:driver': {}, 'f:model': {} },
    });
    expect(owners.kubectl).toEqual({
      'f:metadata': { 'f:labels': { 'f:rack': {} } },
      'f:spec': { 'f:address': {}, 'f:driver': {} },
    });
    expect((await kubectl(['delete', 'mini', 'mini-ssa'])).code).toBe(0);
  });

  it('reports server errors from their Status objects', async () => {
    const invalid = await kubectl(
      ['apply', '-f', '-'],
      MINI.replace('mini-1', 'mini-3').replace('model: m4', 'model: m9'),
    );
    expect(invalid.code).toBe(1);
    expect(invalid.stderr.trim()).toMatch(/^The Mini "mini-3" is invalid: spec\.model: /);
    const unknown = await kubectl(['get', 'widgets']);
    expect(unknown.stderr).toMatch(/the server doesn't have a resource type "widgets"/);

    const res = await fetch(`${server.adminUrl}/apis/sandbay.io/v1alpha1/minis/nope`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'NotFound',
    });

    const badToken = await kubectl(['get', 'minis', '--token=sbk_not_a_key']);
    expect(badToken.stderr).toMatch(/Unauthorized|provide credentials/);
  });
});
