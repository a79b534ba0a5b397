// Wire shape of /health: liveness plus pool statistics.
import Type from 'typebox';

const Counts = (what: string) =>
  Type.Object(
    {
      total: Type.Integer({ description: `All ${what}.` }),
      by_phase: Type.Record(Type.String(), Type.Integer(), {
        description: `${what[0]!.toUpperCase()}${what.slice(1)} per phase.`,
      }),
    },
    { description: `Counts of ${what}.` },
  );

export const HealthSchema = Type.Object({
  status: Type.Literal('ok', { description: 'Always ok: the server answers.' }),
  version: Type.String({ description: 'The server version.' }),
  uptime_s: Type.Number({ description: 'Seconds since this server started.' }),
  minis: Counts('Macs'),
  vms: Counts('VMs'),
  sandboxes: Counts('sandboxes'),
});
