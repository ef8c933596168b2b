// The words an apply failure is reported in: the API server's own message, the same on every
// try, never the client's dump of the response headers (whose audit id differs each time).
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { apiFailure } from './kube.ts';

const refusal = (auditId: string, body: unknown) =>
  new ApiException(403, 'Unknown API Status Code!', body, { 'audit-id': auditId, 'content-type': 'application/json' });

describe('apiFailure', () => {
  it("is the API server's message with its status code, whatever the request's audit id", () => {
    const status = {
      kind: 'Status',
      status: 'Failure',
      message: 'jobs.batch "prod-migrate-1a2b" is forbidden: exceeded quota: no-jobs, requested: count/jobs.batch=1',
      reason: 'Forbidden',
      code: 403,
    };
    const first = apiFailure(refusal('1f0c5a2e-0000-4000-8000-000000000001', status));
    expect(first).toBe(`HTTP 403: ${status.message}`);
    expect(apiFailure(refusal('1f0c5a2e-0000-4000-8000-000000000002', JSON.stringify(status)))).toBe(first);
  });

  it('leaves the headers out of a failure without a message, and passes other errors through', () => {
    const bare = apiFailure(refusal('1f0c5a2e-0000-4000-8000-000000000003', undefined));
    expect(bare).toMatch(/^HTTP-Code: 403/);
    expect(bare).not.toMatch(/audit-id|Headers/);
    expect(apiFailure(new Error("ConfigMap prod-config exists and is not this Errata's"))).toBe(
      "ConfigMap prod-config exists and is not this Errata's",
    );
  });
});
