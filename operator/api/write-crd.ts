// `npm run crd`: writes the CRD generated from the zod schemas to crds/errata.dev_erratas.yaml.
import { writeFileSync } from 'node:fs';
import { crdYaml, CRD_FILE } from './crd-file.ts';

writeFileSync(CRD_FILE, crdYaml());
console.log(`wrote ${CRD_FILE}`);
