// Setting a project's grouping rules (issue 19), one operation for the management API and the
// CLI: each text given is parsed first (a bad rule is refused with its line and column, and
// nothing is stored), then kept verbatim. Rules apply to events processed afterwards only.
import { UserInputError } from '../errors.ts';
import { parseFingerprintRules } from '../grouping/rules/fingerprint-rules.ts';
import { parseStackTraceRules } from '../grouping/rules/stack-trace-rules.ts';
import type { GroupingRuleTexts, TenancyStore } from '../ports/tenancy-store.ts';

/** Enough for hundreds of rules; a rule text is read for every batch of the project's events. */
const MAX_RULE_TEXT_CHARS = 32 * 1024;

export async function setGroupingRules(
  store: Pick<TenancyStore, 'setGroupingRules'>,
  projectId: number,
  texts: Partial<GroupingRuleTexts>,
): Promise<GroupingRuleTexts> {
  if (texts.fingerprintRules === undefined && texts.stackTraceRules === undefined) {
    throw new UserInputError('give fingerprintRules, stackTraceRules or both (each the whole text, "" to clear it)');
  }
  for (const [name, text] of Object.entries(texts)) {
    if (text !== undefined && text.length > MAX_RULE_TEXT_CHARS) {
      throw new UserInputError(
        `${name} is ${text.length} characters; at most ${MAX_RULE_TEXT_CHARS} are kept: merge or drop rules`,
      );
    }
  }
  if (texts.fingerprintRules !== undefined) parseFingerprintRules(texts.fingerprintRules, { limited: true });
  if (texts.stackTraceRules !== undefined) parseStackTraceRules(texts.stackTraceRules, { limited: true });
  return store.setGroupingRules(projectId, texts);
}
