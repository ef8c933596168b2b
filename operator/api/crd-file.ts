// Where the generated CRD is committed, and its YAML text.
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { errataCrd } from './crd.ts';

export const CRD_FILE = fileURLToPath(new URL('../../crds/errata.dev_erratas.yaml', import.meta.url));

export function crdYaml(): string {
  return `# Generated from operator/api/errata-resource.ts by \`npm run crd\`; do not edit.\n${stringify(errataCrd(), { lineWidth: 0 })}`;
}
