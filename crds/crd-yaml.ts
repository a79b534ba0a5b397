import { stringify } from 'yaml';

/** The exact text of a generated CRD file (header + YAML), shared by the generator and the staleness test. */
export function renderCrdYaml(manifest: unknown): string {
  return `# Generated from crds/*.ts by \`npm run crds\`; do not edit by hand.\n${stringify(manifest, { lineWidth: 0 })}`;
}
