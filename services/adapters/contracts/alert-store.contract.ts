// The AlertStore contract: PGlite and Postgres must both pass it, against the real database.
// Each test works in an organization of its own.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AlertStore, NewDelivery, RuleFields } from '../../core/ports/alert-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';

export function describeAlertStoreContract(
  name: string,
  open: () => Promise<{ alerts: AlertStore; metadata: MetadataStore }>,
): void {
  describe(`AlertStore contract: ${name}`, () => {
    let alerts: AlertStore;
    let metadata: MetadataStore;
    beforeAll(async () => {
      ({ alerts, metadata } = await open());
    });

    const unique = () => randomUUID().replace(/-/g, '').slice(0, 12);
    async function setup() {
      const org = await metadata.ensureOrganization(`org-${unique()}`, 'Org');
      const { project } = await metadata.createProject(
        { organizationId: org.id, slug: 'web', name: 'Web' },
        { publicKey: unique() + unique(), label: 'Default' },
      );
      const channel = await alerts.createChannel({
        organizationId: org.id,
        name: 'ops',
        url: 'https://h.example/x',
        sealedSecret: 'sealed-1',
      });
      return { org, project, channel };
    }
    const rule = (channelIds: number[], fields: Partial<RuleFields> = {}): RuleFields => ({
      name: 'r',
      trigger: 'new_issue',
      channelIds,
      environment: null,
      minLevel: null,
      threshold: null,
      windowMinutes: null,
      milestones: null,
      enabled: true,
      ...fields,
    });
    const delivery = (channelId: number, fields: Partial<NewDelivery> = {}): NewDelivery => ({
      channelId,
      ruleId: null,
      projectId: null,
      dedupKey: null,
      kind: 'test',
      body: '{"kind":"test"}',
      status: 'pending',
      ...fields,
    });

    it('keeps channels per organization, updates them, and hands the sealed secret out only by id', async () => {
      const { org, channel } = await setup();
      const other = await metadata.ensureOrganization(`org-${unique()}`, 'Other');
      expect(channel).toMatchObject({ name: 'ops', type: 'webhook', url: 'https://h.example/x', digest: null });
      expect(await alerts.getChannel(other.id, channel.id)).toBeUndefined();
      expect(await alerts.sealedSecretOf(other.id, channel.id)).toBeUndefined();
      expect(await alerts.sealedSecretOf(org.id, channel.id)).toBe('sealed-1');
      const updated = await alerts.updateChannel(org.id, channel.id, {
        name: 'pager',
        digest: { hour: 9, timeZone: 'Europe/Berlin' },
      });
      expect(updated).toMatchObject({
        name: 'pager',
        url: 'https://h.example/x',
        digest: { hour: 9, timeZone: 'Europe/Berlin' },
      });
      await alerts.updateChannel(org.id, channel.id, { sealedSecret: 'sealed-2' });
      expect(await alerts.sealedSecretOf(org.id, channel.id)).toBe('sealed-2');
      expect((await alerts.updateChannel(org.id, channel.id, { digest: null }))!.digest).toBeNull();
      expect(await alerts.updateChannel(other.id, channel.id, { name: 'x' })).toBeUndefined();
      expect((await alerts.listChannels(org.id)).map((c) => c.id)).toEqual([channel.id]);
    });

    it('keeps rules per project; deleting a channel takes it out of rules and its deliveries with it', async () => {
      const { org, project, channel } = await setup();
      const second = await alerts.createChannel({
        organizationId: org.id,
        name: 'b',
        url: 'https://h.example/b',
        sealedSecret: 's',
      });
      const created = await alerts.createRule(
        project.id,
        rule([channel.id, second.id], { trigger: 'frequent', threshold: 5, windowMinutes: 10 }),
      );
      expect(created).toMatchObject({
        projectId: project.id,
        trigger: 'frequent',
        threshold: 5,
        windowMinutes: 10,
        channelIds: [channel.id, second.id],
      });
      expect(await alerts.getRule(project.id + 100000, created.id)).toBeUndefined();
      const updated = await alerts.updateRule(
        project.id,
        created.id,
        rule([channel.id, second.id], { trigger: 'milestone', milestones: [3, 30] }),
      );
      expect(updated).toMatchObject({ trigger: 'milestone', milestones: [3, 30], threshold: null });
      await alerts.enqueueDeliveries([delivery(channel.id)]);
      expect(await alerts.deleteChannel(org.id, channel.id)).toBe(true);
      expect((await alerts.getRule(project.id, created.id))!.channelIds).toEqual([second.id]);
      expect(await alerts.listDeliveries(channel.id, 10)).toEqual([]);
      expect((await alerts.listRules([project.id])).map((r) => r.id)).toEqual([created.id]);
      // A deleted rule's alerts not sent yet go with it (a rule flooding a receiver stops), and
      // what it sent stays in the channel's history.
      const ruleAlert = (key: string, status: 'pending' | 'held') =>
        delivery(second.id, { ruleId: created.id, projectId: project.id, dedupKey: key, kind: 'new_issue', status });
      const [sent] = await alerts.enqueueDeliveries([
        ruleAlert('a', 'pending'),
        ruleAlert('b', 'held'),
        ruleAlert('c', 'pending'),
      ]);
      const at = new Date();
      await alerts.recordAttempt(
        sent!.id,
        { at, statusCode: 200, latencyMs: 8, verdict: 'delivered', error: null },
        {
          status: 'delivered',
        },
      );
      expect(await alerts.deleteRule(project.id, created.id)).toBe(true);
      expect(await alerts.listRules([project.id])).toEqual([]);
      expect((await alerts.listDeliveries(second.id, 10)).map((d) => d.status)).toEqual(['delivered']);
    });

    it('adds a batch of more alerts than one statement may bind as parameters, in one call', async () => {
      const { org, project, channel } = await setup();
      const r = await alerts.createRule(project.id, rule([channel.id]));
      // Seven values a row: 10,000 rows are 70,000, past the 65,535 a statement's parameters may number.
      const many = Array.from({ length: 10_000 }, (_, i) =>
        delivery(channel.id, { ruleId: r.id, projectId: project.id, dedupKey: `every:${i}`, kind: 'every_occurrence' }),
      );
      const added = await alerts.enqueueDeliveries(many);
      expect(added).toHaveLength(10_000);
      expect(new Set(added.map((d) => d.id)).size).toBe(10_000);
      // Gone with their channel, so the later tests claim only their own.
      expect(await alerts.deleteChannel(org.id, channel.id)).toBe(true);
    });

    it('adds one delivery per rule, channel and dedup key, however often it is enqueued', async () => {
      const { project, channel } = await setup();
      const r = await alerts.createRule(project.id, rule([channel.id]));
      const keyed = delivery(channel.id, { ruleId: r.id, projectId: project.id, dedupKey: 'new_issue:1', kind: 'new_issue' });
      expect(await alerts.enqueueDeliveries([keyed])).toHaveLength(1);
      expect(await alerts.enqueueDeliveries([keyed, { ...keyed, dedupKey: 'new_issue:2' }])).toHaveLength(1);
      // Deliveries without a key (digests, summaries) are never merged.
      const digest = delivery(channel.id, { kind: 'digest' });
      expect(await alerts.enqueueDeliveries([digest, digest])).toHaveLength(2);
      expect(await alerts.enqueueDeliveries([delivery(channel.id + 100000)])).toEqual([]);
      // What is there already is found as such, and only that.
      const asked = [
        { ruleId: r.id, channelId: channel.id, dedupKey: 'new_issue:1' },
        { ruleId: r.id, channelId: channel.id, dedupKey: 'new_issue:3' },
        { ruleId: r.id, channelId: channel.id + 100000, dedupKey: 'new_issue:1' },
      ];
      expect(await alerts.existingDeliveryKeys(asked)).toEqual(new Set([`${r.id}:${channel.id}:new_issue:1`]));
      expect(await alerts.existingDeliveryKeys([])).toEqual(new Set());
      // The channel's hourly limit counts those four; held ones do not, nor do tests (sixty of them
      // held every real alert to the channel for the hour). With a limit of 6, two more alerts go
      // out and the third is held.
      await alerts.enqueueDeliveries([delivery(channel.id, { status: 'held', kind: 'new_issue' })]);
      await alerts.enqueueDeliveries([delivery(channel.id, { kind: 'test' })]);
      // The body names the alert, for the checks below.
      const alert = (dedupKey: string) => ({
        channelId: channel.id,
        ruleId: r.id,
        projectId: project.id,
        dedupKey,
        kind: 'new_issue' as const,
        body: dedupKey,
      });
      const hourAgo = new Date(Date.now() - 3_600_000);
      const limited = await alerts.enqueueAlerts([alert('new_issue:5'), alert('new_issue:6'), alert('new_issue:7')], {
        perHour: 6,
        since: hourAgo,
      });
      expect(limited.map((d) => [d.body, d.status]).sort()).toEqual([
        ['new_issue:5', 'pending'],
        ['new_issue:6', 'pending'],
        ['new_issue:7', 'held'],
      ]);
      // Only what was added since `since` counts; and only what is added takes a place: not an
      // alert already there (nor one twice in the batch), nor one to a channel deleted meanwhile.
      const later = await alerts.enqueueAlerts(
        [
          alert('new_issue:5'),
          { ...alert('new_issue:9'), channelId: channel.id + 100_000 },
          alert('new_issue:8'),
          alert('new_issue:8'),
        ],
        { perHour: 1, since: new Date(Date.now() + 60_000) },
      );
      expect(later.map((d) => [d.body, d.status])).toEqual([['new_issue:8', 'pending']]);
    });

    it("keeps to a channel's hourly limit when several dispatchers add alerts to it at once", async () => {
      const { project, channel } = await setup();
      const r = await alerts.createRule(project.id, rule([channel.id]));
      const alert = (i: number) => ({
        channelId: channel.id,
        ruleId: r.id,
        projectId: project.id,
        dedupKey: `new_issue:${i}`,
        kind: 'new_issue' as const,
        body: '{}',
      });
      const since = new Date(Date.now() - 3_600_000);
      const added = await Promise.all(
        Array.from({ length: 8 }, (_, i) => alerts.enqueueAlerts([alert(i)], { perHour: 3, since })),
      );
      const statuses = added.flat().map((d) => d.status);
      expect(statuses.filter((s) => s === 'pending')).toHaveLength(3);
      expect(statuses.filter((s) => s === 'held')).toHaveLength(5);
    });

    it("keeps through retention the deliveries that stand for an issue's once-ever alert", async () => {
      const { project, channel } = await setup();
      const r = await alerts.createRule(project.id, rule([channel.id]));
      const keyed = (dedupKey: string) =>
        delivery(channel.id, { ruleId: r.id, projectId: project.id, dedupKey, kind: 'many_users' });
      const added = await alerts.enqueueDeliveries([keyed('many_users:7'), keyed('many_users:8:123'), keyed('frequent:7:9')]);
      for (const d of added) {
        await alerts.recordAttempt(
          d.id,
          { at: new Date(), statusCode: 200, latencyMs: 5, verdict: 'delivered', error: null },
          { status: 'delivered' },
        );
      }
      await alerts.deleteFinishedDeliveriesBefore(new Date(Date.now() + 60_000));
      // A lifetime many_users alert is once per issue: its delivery is what keeps it from firing
      // again. Deleted with retention, the issue alerted again on its next event, every 90 days.
      const kept = (dedupKey: string) => ({ ruleId: r.id, channelId: channel.id, dedupKey });
      expect(await alerts.existingDeliveryKeys([kept('many_users:7'), kept('many_users:8:123'), kept('frequent:7:9')])).toEqual(
        new Set([`${r.id}:${channel.id}:many_users:7`]),
      );
    });

    it('keeps whether a rule is enabled, and records when it last fired: an alert added, not a test or a repeat', async () => {
      const { project, channel } = await setup();
      const r = await alerts.createRule(project.id, rule([channel.id], { enabled: false }));
      expect(r).toMatchObject({ enabled: false, lastFiredAt: null });
      expect(await alerts.updateRule(project.id, r.id, rule([channel.id]))).toMatchObject({ enabled: true, lastFiredAt: null });
      await alerts.enqueueDeliveries([delivery(channel.id, { ruleId: r.id, projectId: project.id })]);
      expect((await alerts.getRule(project.id, r.id))!.lastFiredAt).toBeNull();
      const keyed = delivery(channel.id, {
        ruleId: r.id,
        projectId: project.id,
        dedupKey: 'new_issue:1',
        kind: 'new_issue',
        status: 'held',
      });
      const [added] = await alerts.enqueueDeliveries([keyed]);
      const fired = (await alerts.getRule(project.id, r.id))!.lastFiredAt;
      // Set in the statement that adds the delivery: the same transaction time as its createdAt.
      expect(fired).toEqual(added!.createdAt);
      // The same alert again adds nothing, so it is no new firing.
      expect(await alerts.enqueueDeliveries([keyed])).toEqual([]);
      expect((await alerts.getRule(project.id, r.id))!.lastFiredAt).toEqual(fired);
    });

    it('claims one delivery per channel at a time, each once however many claim at once', async () => {
      const { org, channel } = await setup();
      const others = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          alerts.createChannel({ organizationId: org.id, name: `c${n}`, url: 'https://h.example/c', sealedSecret: 's' }),
        ),
      );
      const ours = new Set([channel.id, ...others.map((c) => c.id)]);
      await alerts.enqueueDeliveries([channel, ...others].flatMap((c) => [delivery(c.id), delivery(c.id), delivery(c.id)]));
      const now = new Date(Date.now() + 1000);
      const claimed = (await Promise.all([1, 2, 3, 4].map(() => alerts.claimDueDeliveries(now, 100, 30_000))))
        .flat()
        .filter((d) => ours.has(d.channelId));
      // Each channel's first, once: the other two wait while it is in flight.
      expect(claimed).toHaveLength(6);
      expect(new Set(claimed.map((d) => d.channelId)).size).toBe(6);
      expect((await alerts.claimDueDeliveries(now, 100, 30_000)).filter((d) => ours.has(d.channelId))).toEqual([]);
      for (const c of [channel, ...others]) await alerts.deleteChannel(org.id, c.id);
    });

    it('adds no test to a channel with a test not yet tried, and again once it was tried', async () => {
      const { org, channel, project } = await setup();
      const other = await alerts.createChannel({
        organizationId: org.id,
        name: 'other',
        url: 'https://h.example/y',
        sealedSecret: 's',
      });
      const [first] = await alerts.enqueueDeliveries([delivery(channel.id)]);
      expect(first).toBeDefined();
      const again = await alerts.enqueueDeliveries([delivery(channel.id), delivery(other.id)]);
      expect(again.map((d) => d.channelId)).toEqual([other.id]);
      // Alerts are not held back by a waiting test.
      const alert = delivery(channel.id, { kind: 'new_issue', projectId: project.id });
      expect(await alerts.enqueueDeliveries([alert])).toHaveLength(1);
      // Tried and to be retried: the receiver may have been fixed since, and is tested again.
      await alerts.recordAttempt(
        first!.id,
        { at: new Date(), statusCode: 503, latencyMs: 8, verdict: 'retry', error: null },
        { status: 'pending', nextAttemptAt: new Date(Date.now() + 60_000) },
      );
      expect(await alerts.enqueueDeliveries([delivery(channel.id)])).toHaveLength(1);
    });

    it('adds one test to a channel when two come in one batch or in requests at once', async () => {
      const { channel } = await setup();
      expect(await alerts.enqueueDeliveries([delivery(channel.id), delivery(channel.id)])).toHaveLength(1);
      const { channel: quiet } = await setup();
      const added = await Promise.all([1, 2, 3, 4].map(() => alerts.enqueueDeliveries([delivery(quiet.id)])));
      expect(added.flat()).toHaveLength(1);
    });

    it('claims due deliveries once until the claim runs out, and records attempts', async () => {
      const { channel } = await setup();
      const [added] = await alerts.enqueueDeliveries([delivery(channel.id)]);
      const now = new Date(Date.now() + 1000);
      const claimed = (await alerts.claimDueDeliveries(now, 100, 30_000)).filter((d) => d.id === added!.id);
      expect(claimed).toMatchObject([{ url: 'https://h.example/x', sealedSecret: 'sealed-1', attempts: 0 }]);
      expect((await alerts.claimDueDeliveries(now, 100, 30_000)).some((d) => d.id === added!.id)).toBe(false);
      const later = new Date(now.getTime() + 31_000);
      expect((await alerts.claimDueDeliveries(later, 100, 30_000)).some((d) => d.id === added!.id)).toBe(true);

      const retryAt = new Date(later.getTime() + 60_000);
      await alerts.recordAttempt(
        added!.id,
        { at: later, statusCode: 503, latencyMs: 12, verdict: 'retry', error: null },
        { status: 'pending', nextAttemptAt: retryAt },
      );
      expect(
        (await alerts.claimDueDeliveries(new Date(retryAt.getTime() - 1), 100, 30_000)).some((d) => d.id === added!.id),
      ).toBe(false);
      expect((await alerts.claimDueDeliveries(retryAt, 100, 30_000)).some((d) => d.id === added!.id)).toBe(true);
      await alerts.recordAttempt(
        added!.id,
        { at: retryAt, statusCode: 200, latencyMs: 8, verdict: 'delivered', error: null },
        { status: 'delivered' },
      );
      const [listed] = await alerts.listDeliveries(channel.id, 10);
      expect(listed).toMatchObject({ status: 'delivered', attempts: 2, finishedAt: retryAt });
      expect(listed!.attemptLog.map((a) => [a.statusCode, a.verdict])).toEqual([
        [503, 'retry'],
        [200, 'delivered'],
      ]);
      expect(
        (await alerts.claimDueDeliveries(new Date(retryAt.getTime() + 3_600_000), 100, 30_000)).some((d) => d.id === added!.id),
      ).toBe(false);
    });

    it("withdraws a deleted project's alerts not yet sent, keeps those sent, and the one being sent until its attempt", async () => {
      const { org, project, channel: sending } = await setup();
      const waiting = await alerts.createChannel({
        organizationId: org.id,
        name: 'w',
        url: 'https://h.example/w',
        sealedSecret: 's',
      });
      const alert = (channelId: number, dedupKey: string) =>
        delivery(channelId, {
          kind: 'new_issue',
          projectId: project.id,
          dedupKey,
          body: `{"kind":"new_issue","key":"${dedupKey}"}`,
        });
      const [sent] = await alerts.enqueueDeliveries([alert(sending.id, 'sent')]);
      const now = new Date(Date.now() + 1000);
      await alerts.claimDueDeliveries(now, 100, 30_000);
      await alerts.recordAttempt(
        sent!.id,
        { at: now, statusCode: 200, latencyMs: 5, verdict: 'delivered', error: null },
        { status: 'delivered' },
      );
      const [claimed] = await alerts.enqueueDeliveries([alert(sending.id, 'claimed')]);
      expect((await alerts.claimDueDeliveries(now, 100, 30_000)).map((d) => d.id)).toContain(claimed!.id);
      const [pending] = await alerts.enqueueDeliveries([alert(waiting.id, 'pending')]);
      const ids = async (channelId: number) => (await alerts.listDeliveries(channelId, 10)).map((d) => d.id).sort();
      expect(await ids(waiting.id)).toEqual([pending!.id]);

      await metadata.deleteProject(project.id, now);
      expect(await ids(sending.id)).toEqual([sent!.id, claimed!.id].sort());
      expect(await ids(waiting.id)).toEqual([]);
      // The one being sent records its attempt against its row; to be retried, it is not claimed
      // again (its links lead nowhere), and goes once the project is forgotten.
      await alerts.recordAttempt(
        claimed!.id,
        { at: now, statusCode: 503, latencyMs: 5, verdict: 'retry', error: null },
        { status: 'pending', nextAttemptAt: now },
      );
      const attempts = (await alerts.listDeliveries(sending.id, 10)).find((d) => d.id === claimed!.id)?.attemptLog;
      expect(attempts?.map((a) => a.verdict)).toEqual(['retry']);
      const later = new Date(now.getTime() + 60_000);
      expect((await alerts.claimDueDeliveries(later, 100, 30_000)).map((d) => d.id)).not.toContain(claimed!.id);
      await metadata.forgetDeletedProject(project.id);
      expect(await ids(sending.id)).toEqual([sent!.id]);
    });

    it('summarizes held deliveries once: a second summary of the same ones changes nothing', async () => {
      const { channel } = await setup();
      const held = await alerts.enqueueDeliveries([
        delivery(channel.id, { status: 'held', kind: 'new_issue' }),
        delivery(channel.id, { status: 'held', kind: 'frequent' }),
      ]);
      // Postgres stamps in microseconds, Date counts milliseconds: a delivery held within the
      // current millisecond is after `new Date()` (seen once in five Postgres runs).
      const now = new Date(Date.now() + 1);
      const hourAgo = new Date(now.getTime() - 3_600_000);
      const due = async (heldBefore: Date) => (await alerts.channelsToSummarize(heldBefore, hourAgo)).map((c) => c.id);
      expect(await due(hourAgo)).not.toContain(channel.id);
      expect(await due(now)).toContain(channel.id);
      expect((await alerts.listHeld(channel.id)).map((d) => d.id)).toEqual(held.map((d) => d.id));
      // What a summary counts by, without the bodies (an hour of them was hundreds of megabytes).
      expect((await alerts.listHeld(channel.id))[0]).toEqual({
        id: held[0]!.id,
        projectId: held[0]!.projectId,
        kind: held[0]!.kind,
      });
      const ids = held.map((d) => d.id);
      const summary = delivery(channel.id, { kind: 'overflow_summary' });
      expect(await alerts.summarizeHeld(ids, summary, hourAgo)).toBe(true);
      expect(await alerts.summarizeHeld(ids, summary, hourAgo)).toBe(false);
      const statuses = (await alerts.listDeliveries(channel.id, 10)).map((d) => `${d.kind}:${d.status}`).sort();
      expect(statuses).toEqual(['frequent:summarized', 'new_issue:summarized', 'overflow_summary:pending']);
      // A summary was just sent: the channel waits for the next, however much is held meanwhile,
      // and a dispatcher that read the held alerts before that summary cannot send a second.
      const [late] = await alerts.enqueueDeliveries([delivery(channel.id, { status: 'held', kind: 'new_issue' })]);
      expect(await due(new Date(now.getTime() + 60_000))).not.toContain(channel.id);
      expect(await alerts.summarizeHeld([late!.id], summary, hourAgo)).toBe(false);
      expect((await alerts.listHeld(channel.id)).map((d) => d.id)).toEqual([late!.id]);
      await expect(alerts.summarizeHeld([], summary, hourAgo)).rejects.toThrow(/needs the held deliveries/);

      // Finished deliveries go with retention; held and pending ones stay.
      await alerts.deleteFinishedDeliveriesBefore(new Date(now.getTime() + 60_000));
      const left = (await alerts.listDeliveries(channel.id, 10)).map((d) => `${d.kind}:${d.status}`).sort();
      expect(left).toEqual(['new_issue:held', 'overflow_summary:pending']);
    });

    it('claims each digest once; setting a schedule starts it from then', async () => {
      const { org, channel } = await setup();
      expect((await alerts.listDigestChannels()).some((c) => c.id === channel.id)).toBe(false);
      const before = new Date(Date.now() - 1000);
      await alerts.updateChannel(org.id, channel.id, { digest: { hour: 9, timeZone: 'UTC' } });
      const listed = (await alerts.listDigestChannels()).find((c) => c.id === channel.id)!;
      expect(listed.digest).toEqual({ hour: 9, timeZone: 'UTC' });
      expect(listed.digestSentAt!.getTime()).toBeGreaterThan(before.getTime());
      // Saved again unchanged (the settings form always posts the schedule, with a rename), the
      // schedule keeps its place: before, the rename skipped a digest due meanwhile.
      await alerts.claimDigest(channel.id, new Date(Date.now() + 3_600_000), null);
      const sentAt = (await alerts.listDigestChannels()).find((c) => c.id === channel.id)!.digestSentAt;
      await alerts.updateChannel(org.id, channel.id, { name: 'renamed', digest: { hour: 9, timeZone: 'UTC' } });
      expect((await alerts.listDigestChannels()).find((c) => c.id === channel.id)!.digestSentAt).toEqual(sentAt);
      // A changed schedule counts from now again (sentAt was an hour ahead).
      await alerts.updateChannel(org.id, channel.id, { digest: { hour: 10, timeZone: 'UTC' } });
      expect((await alerts.listDigestChannels()).find((c) => c.id === channel.id)!.digestSentAt!.getTime()).toBeLessThan(
        sentAt!.getTime(),
      );
      const dueAt = new Date(Date.now() + 3_600_000);
      expect(await alerts.claimDigest(channel.id, dueAt, delivery(channel.id, { kind: 'digest' }))).toBe(true);
      expect(await alerts.claimDigest(channel.id, dueAt, delivery(channel.id, { kind: 'digest' }))).toBe(false);
      expect(await alerts.claimDigest(channel.id, new Date(dueAt.getTime() + 86_400_000), null)).toBe(true);
      expect((await alerts.listDeliveries(channel.id, 10)).map((d) => d.kind)).toEqual(['digest']);
      // Where the last digest ended outlives a changed schedule: the next one starts there.
      const reportedUntil = async () => (await alerts.listDigestChannels()).find((c) => c.id === channel.id)!.digestReportedUntil;
      expect(await reportedUntil()).toEqual(new Date(dueAt.getTime() + 86_400_000));
      await alerts.updateChannel(org.id, channel.id, { digest: { hour: 11, timeZone: 'UTC' } });
      expect(await reportedUntil()).toEqual(new Date(dueAt.getTime() + 86_400_000));
      // Turned off and on again, its next digest is a first one, not the days it was off.
      await alerts.updateChannel(org.id, channel.id, { digest: null });
      await alerts.updateChannel(org.id, channel.id, { digest: { hour: 11, timeZone: 'UTC' } });
      expect(await reportedUntil()).toBeNull();
    });

    it('gives each organization a turn in a claim: one with many channels due first does not take every sender', async () => {
      const now = new Date(Date.now() + 5_000);
      // What other tests left due, out of the way for this claim.
      await alerts.claimDueDeliveries(now, 10_000, 600_000);
      const busy = await setup();
      const other = await setup();
      const busyChannels = [busy.channel];
      for (const name of ['b', 'c']) {
        busyChannels.push(
          await alerts.createChannel({ organizationId: busy.org.id, name, url: 'https://h.example/x', sealedSecret: 's' }),
        );
      }
      for (const channel of busyChannels) await alerts.enqueueDeliveries([delivery(channel.id)]);
      // Due last of all: before, the busy organization's three older ones took both senders.
      await alerts.enqueueDeliveries([delivery(other.channel.id)]);
      const claimed = await alerts.claimDueDeliveries(now, 2, 60_000);
      expect(claimed.map((d) => d.channelId).sort()).toEqual([busyChannels[0]!.id, other.channel.id].sort());
      for (const channel of busyChannels) await alerts.deleteChannel(busy.org.id, channel.id);
      await alerts.deleteChannel(other.org.id, other.channel.id);
    });
  });
}
