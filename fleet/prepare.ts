// Preparing a Mac over SSH: one remote command per script, in order, each re-run when its script or
// its inputs change (the command line carries both, and `triggers` names them for the diff).
import * as command from '@pulumi/command';
import type * as pulumi from '@pulumi/pulumi';
import { IMAGES } from '../crds/index.ts';
import type { FleetConfig } from './config.ts';
import { SCRIPTS, scriptCommand, scriptDigest, type ScriptName } from './scripts.ts';
import type { MacTarget } from './target.ts';

function inputsOf(script: ScriptName, mac: MacTarget, fleet: FleetConfig): Record<string, string> {
  const common = { MAC_NAME: mac.name };
  switch (script) {
    case 'install-tart':
      return { ...common, TART_VERSION: fleet.tartVersion };
    case 'pull-images':
      return { ...common, IMAGES: fleet.baseImages.join(' '), NAMED: namedImages(fleet) };
    case 'install-key':
      return { ...common, CONTROL_PLANE_KEY: fleet.controlPlanePublicKey };
    case 'install-softnet':
    case 'check-session':
    case 'check-licence':
      return common;
  }
}

/**
 * The local images the driver clones (crds/mac-models.ts), each made from the first base image and
 * grown to its disk size: `NAME=SOURCE=GB` for pull-images.
 */
function namedImages(fleet: FleetConfig): string {
  const source = fleet.baseImages[0]!;
  return Object.values(IMAGES)
    .map((i) => `${i.name}=${source}=${i.diskGiB}`)
    .join(' ');
}

/** The Mac's preparation commands, in order; the last one is what registration waits for. */
export function prepareMac(mac: MacTarget, fleet: FleetConfig): command.remote.Command[] {
  const connection: command.types.input.remote.ConnectionArgs = {
    host: mac.address,
    user: mac.user,
    port: mac.port,
    privateKey: mac.privateKey,
  };
  const commands: command.remote.Command[] = [];
  for (const script of SCRIPTS) {
    const vars = inputsOf(script, mac, fleet);
    const previous: pulumi.Resource[] =
      commands.length > 0 ? [commands[commands.length - 1]!] : mac.dependsOn;
    commands.push(
      new command.remote.Command(
        `${mac.name}-${script}`,
        {
          connection,
          create: scriptCommand(script, vars),
          triggers: [scriptDigest(script), vars],
        },
        { dependsOn: previous },
      ),
    );
  }
  return commands;
}
