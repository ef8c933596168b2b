// Deletes what a suite left on the shared test broker under its prefix: its topics (and their
// data, which otherwise stays on disk until the broker's retention, a week by default: the
// benchmark runs of several sessions filled the machine's disk) and its consumer groups.
import { Admin } from '@platformatic/kafka';
import { innermostErrors, onlyKafkaError } from '../../services/adapters/kafka/kafka-error.ts';

export async function deleteKafkaPrefix(admin: Admin, prefix: string): Promise<void> {
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (topics.length > 0) await admin.deleteTopics({ topics });
  const groups = [...(await admin.listGroups()).keys()].filter((g) => g.startsWith(prefix));
  // A group whose member was killed stays non-empty until its session times out: left behind, and
  // said. One the broker no longer knows is already gone (deleting its topics dropped its offsets).
  if (groups.length > 0) {
    await admin.deleteGroups({ groups }).catch((error: unknown) => {
      if (onlyKafkaError(error, 'GROUP_ID_NOT_FOUND')) return;
      const reasons = innermostErrors(error).map((e) => (e instanceof Error ? e.message : String(e)));
      console.warn(`consumer groups ${groups.join(', ')} not deleted: ${reasons.join('; ')}`);
    });
  }
}

/** The same with an admin client of its own, for callers that have none. */
export async function deleteKafkaPrefixOn(brokers: string[], prefix: string): Promise<void> {
  const admin = new Admin({ bootstrapBrokers: brokers, clientId: 'errata-test-cleanup' });
  try {
    await deleteKafkaPrefix(admin, prefix);
  } finally {
    await admin.close();
  }
}
