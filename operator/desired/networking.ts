// How traffic reaches the roles: a Service per role, and the Ingress. Ingress paths match the
// longest prefix, so `/api` (SDK ingest: /api/<id>/store/, /api/<id>/envelope/, and the upload
// protocol's /api/0/) goes to ingest while the longer `/api/v1` (agent and management API) goes
// to mcp, with /mcp, /llms.txt and the dashboard (/, /login, /logout, /account/..., /setup,
// /reset, /invitations/..., /sign-in/..., /organizations/..., /assets/...).
// /metrics and /healthz stay inside the cluster.
import type { ErrataResource, Role } from '../api/errata-resource.ts';
import { HTTP_PORT, objectName, ownedMetadata, selectorLabels } from './metadata.ts';

export function roleService(resource: ErrataResource, role: Role) {
  const body = {
    type: 'ClusterIP',
    selector: selectorLabels(resource, role),
    ports: [{ name: 'http', port: HTTP_PORT, targetPort: 'http', protocol: 'TCP' }],
  };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ownedMetadata(resource, objectName(resource, role), role, body),
    spec: body,
  };
}

const INGRESS_ROUTES: ReadonlyArray<{ path: string; pathType: 'Prefix' | 'Exact'; role: Role }> = [
  { path: '/api', pathType: 'Prefix', role: 'ingest' },
  { path: '/api/v1', pathType: 'Prefix', role: 'mcp' },
  { path: '/mcp', pathType: 'Prefix', role: 'mcp' },
  { path: '/llms.txt', pathType: 'Exact', role: 'mcp' },
  // The dashboard: its pages (where alerts link), / and the sign-in pages, and its hashed assets.
  // Not `/` as a prefix: that would publish /metrics and /healthz.
  { path: '/organizations', pathType: 'Prefix', role: 'mcp' },
  { path: '/', pathType: 'Exact', role: 'mcp' },
  { path: '/login', pathType: 'Exact', role: 'mcp' },
  { path: '/logout', pathType: 'Exact', role: 'mcp' },
  { path: '/account', pathType: 'Prefix', role: 'mcp' },
  { path: '/setup', pathType: 'Exact', role: 'mcp' },
  { path: '/reset', pathType: 'Exact', role: 'mcp' },
  { path: '/invitations', pathType: 'Prefix', role: 'mcp' },
  // Single sign-on: /sign-in/oidc and the provider's return, /sign-in/oidc/callback.
  { path: '/sign-in', pathType: 'Prefix', role: 'mcp' },
  { path: '/assets', pathType: 'Prefix', role: 'mcp' },
];

export function ingress(resource: ErrataResource) {
  const spec = resource.spec.ingress;
  if (!spec) return undefined;
  const body = {
    ...(spec.className ? { ingressClassName: spec.className } : {}),
    ...(spec.tlsSecretName ? { tls: [{ hosts: [spec.host], secretName: spec.tlsSecretName }] } : {}),
    rules: [
      {
        host: spec.host,
        http: {
          paths: INGRESS_ROUTES.map((route) => ({
            path: route.path,
            pathType: route.pathType,
            backend: { service: { name: objectName(resource, route.role), port: { name: 'http' } } },
          })),
        },
      },
    ],
  };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: ownedMetadata(resource, objectName(resource), 'ingress', body, { annotations: spec.annotations ?? {} }),
    spec: body,
  };
}
