// The Pulumi program's entry (Pulumi.yaml: `main: fleet/`): the stack's outputs are the fleet.
import { fleetProgram, readFleetConfig } from './program.ts';

const { minis } = fleetProgram(readFleetConfig());

/** `pulumi stack output minis`: each Mini's name, address, model, source and capacity. */
export { minis };
