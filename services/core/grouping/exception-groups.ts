// Which exceptions of an exception group (Python ExceptionGroup, JavaScript AggregateError, .NET
// AggregateException) take part in grouping, as Sentry decides it (RFC 0079, "Sentry issue
// grouping"; newstyle.py filter_exceptions_for_exception_groups). Without this, an
// AggregateError of the same failure twice groups apart from the failure once, and the order in
// which an SDK lists the members changes the hash.
//
// The members form a tree through mechanism.exception_id / parent_id, the root having id 0. The
// "top-level" exceptions are the first non-group exceptions under the root (groups are looked
// through), ordered by type, descending. Identical top-level exceptions count once. One distinct
// top-level exception stands for the whole event, with its first cause, that cause's first
// cause, and so on; several are kept, one of each, followed by the root group. Whenever the tree
// is broken (an id missing, repeated or its own parent; no root; a cycle) the list stays as sent.
import type { ExceptionValue } from '../event/event.ts';
import { frameValues } from './frame-values.ts';
import { normalizeMessageForGrouping } from './normalize-message.ts';

interface GroupingContextOfExceptions {
  platform: string;
  sdkVersion?: string;
}

export function exceptionsForGrouping(exceptions: ExceptionValue[], context: GroupingContextOfExceptions): ExceptionValue[] {
  if (exceptions.length <= 1) return exceptions;
  // Sentry keeps how Python SDK 2 events hashed for version 3, which links every chain with
  // exception ids: for those events it does not filter (a stopgap on Sentry's side we follow).
  if (context.platform === 'python' && context.sdkVersion?.startsWith('3')) return exceptions;

  const children = new Map<number, ExceptionValue[]>();
  const byId = new Map<number, ExceptionValue>();
  // Newest first, as Sentry reads them: a group's members end up in the reverse of the sent order.
  for (const exception of [...exceptions].reverse()) {
    const id = exception.mechanism?.exception_id;
    const parentId = exception.mechanism?.parent_id;
    if (id === undefined || id === parentId || byId.has(id)) return exceptions;
    byId.set(id, exception);
    if (parentId !== undefined) children.set(parentId, [...(children.get(parentId) ?? []), exception]);
  }
  const root = byId.get(0);
  if (!root) return exceptions;
  const childrenOf = (exception: ExceptionValue) => children.get(exception.mechanism!.exception_id!) ?? [];

  const topLevel: ExceptionValue[] = [];
  const visited = new Set<ExceptionValue>();
  const collect = (exception: ExceptionValue): boolean => {
    if (visited.has(exception)) return false; // a cycle
    visited.add(exception);
    if (!exception.mechanism?.is_exception_group) topLevel.push(exception);
    else for (const child of childrenOf(exception)) if (!collect(child)) return false;
    return true;
  };
  if (!collect(root) || topLevel.length === 0) return exceptions;
  // A stable sort, like Python's sorted(): members of one type keep their order.
  topLevel.sort((a, b) => compareDescending(String(a.type), String(b.type)));

  const distinct: ExceptionValue[] = [];
  let previousKey: string | undefined;
  for (const exception of topLevel) {
    const key = groupingIdentity(exception, context.platform);
    if (key !== previousKey) distinct.push(exception);
    previousKey = key;
  }
  if (distinct.length > 1) return [...distinct, root];

  const path: ExceptionValue[] = [];
  for (let node: ExceptionValue | undefined = distinct[0]; node && !path.includes(node); node = childrenOf(node)[0]) {
    path.push(node);
  }
  return path;
}

/** Python compares str by code point; so does this (localeCompare would not). */
function compareDescending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

/**
 * What makes two top-level exceptions "the same" one: Sentry compares everything their grouping
 * components hold, contributing or not, so the type, the normalized value and every frame's values.
 */
function groupingIdentity(exception: ExceptionValue, platform: string): string {
  const frames = (exception.stacktrace?.frames ?? []).map((frame) => [frame.in_app === true, frameValues(frame, platform)]);
  return JSON.stringify([
    exception.type ?? null,
    exception.mechanism?.synthetic === true,
    exception.value === undefined ? null : normalizeMessageForGrouping(exception.value),
    frames,
  ]);
}
