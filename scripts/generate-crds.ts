// Writes crds/<kind>.yaml from the TypeBox schemas (`npm run crds`). crds/crds.test.ts fails when the
// committed files differ from what this would write.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KINDS } from '../crds/index.ts';
import { crdFileName, crdManifest } from '../crds/crd-manifest.ts';
import { renderCrdYaml } from '../crds/crd-yaml.ts';

const dir = join(import.meta.dirname, '..', 'crds');
for (const def of KINDS) {
  const file = join(dir, crdFileName(def));
  await writeFile(file, renderCrdYaml(crdManifest(def)));
  console.log(`wrote ${file}`);
}
