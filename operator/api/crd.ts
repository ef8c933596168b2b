// The CustomResourceDefinition of `Errata`, generated from the zod schemas in
// errata-resource.ts, so the API server and the operator refuse the same specs. zod's JSON
// Schema is narrowed to what a Kubernetes structural schema allows (no $schema, no
// propertyNames, no `additionalProperties: false`), and the cross-field rules zod checks in
// code become CEL rules the API server evaluates. `npm run crd` writes the YAML to crds/; a unit
// test fails when the committed file differs from what this generates.
import { z } from 'zod';
import { errataSpec, errataStatus, GROUP, KIND, PLURAL, ROLES, VERSION } from './errata-resource.ts';

type JsonSchema = { [key: string]: unknown };

/** Bounds zod writes for plain numbers that say nothing to a reader of the CRD. */
const NOISE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** zod's JSON Schema, narrowed to a Kubernetes structural schema. */
function structural(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'propertyNames') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if ((key === 'minimum' || key === 'maximum') && NOISE_BOUNDS.has(value as number)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([name, sub]) => [name, structural(sub)]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && typeof value === 'object' && value !== null) {
      out[key] = structural(value as JsonSchema);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The rules zod's superRefine checks, as CEL the API server runs (messages as the operator words them). */
function withCrossFieldRules(spec: JsonSchema): JsonSchema {
  const properties = spec.properties as Record<string, JsonSchema & { properties: Record<string, JsonSchema> }>;
  for (const role of ROLES) {
    // A variable named twice: the API server refuses it as the operator does (it was accepted,
    // and the resource then sat Degraded), and server-side apply merges the list by name.
    Object.assign(properties[role]!.properties.env!, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });
    const autoscaling = properties[role]!.properties.autoscaling!;
    autoscaling['x-kubernetes-validations'] = [
      { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
    ];
  }
  properties.s3!['x-kubernetes-validations'] = [
    {
      rule: 'has(self.accessKeyId) == has(self.secretAccessKey)',
      message: 'give both accessKeyId and secretAccessKey, or neither',
    },
  ];
  return spec;
}

const condition = (type: string) => `.status.conditions[?(@.type=="${type}")]`;

export function errataCrd(): JsonSchema {
  const spec = withCrossFieldRules(structural(z.toJSONSchema(errataSpec, { io: 'input', unrepresentable: 'any' })));
  const status = structural(z.toJSONSchema(errataStatus, { io: 'output', unrepresentable: 'any' }));
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: KIND, listKind: `${KIND}List`, plural: PLURAL, singular: KIND.toLowerCase(), categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Ready', type: 'string', jsonPath: `${condition('Ready')}.status` },
            { name: 'Reason', type: 'string', jsonPath: `${condition('Ready')}.reason` },
            { name: 'Version', type: 'string', jsonPath: '.status.version' },
            { name: 'Ingest', type: 'string', jsonPath: '.status.urls.ingest', priority: 1 },
            { name: 'MCP', type: 'string', jsonPath: '.status.urls.mcp', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'Errata: error tracking and structured logs, run by the Errata operator.',
              required: ['spec'],
              'x-kubernetes-validations': [
                {
                  rule: "self.metadata.name.size() <= 40 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
                  message:
                    'metadata.name must start with a letter, hold only lowercase letters, digits and "-", and be at most 40 characters: the names of the objects the operator makes are built from it',
                },
              ],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec,
                status,
              },
            },
          },
        },
      ],
    },
  };
}
