// Wire shape of /health: liveness plus pool statistics.
import Type from 'typebox';

const Counts = Type.Record(Type.String(), Type.Integer());

export const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  uptime_s: Type.Number(),
  minis: Type.Object({ total: Type.Integer(), by_phase: Counts }),
  vms: Type.Object({ total: Type.Integer(), by_phase: Counts }),
  sandboxes: Type.Object({ total: Type.Integer(), by_phase: Counts }),
});
