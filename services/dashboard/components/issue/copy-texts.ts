// The texts the issue page offers to copy: a Markdown summary to paste into an agent's chat,
// and the MCP tools/call that fetches the same issue's whole context.
import { primaryException, type Frame } from '../../../core/event/event.ts';
import type { StoredEvent } from '../../../core/ports/event-store.ts';
import type { Issue } from '../../../core/ports/metadata-store.ts';
import { frameLocation } from './frames.ts';

const TOP_FRAMES = 5;

export function issueMarkdown(issue: Issue, event: StoredEvent | undefined, url: string): string {
  const lines = [
    `## ${issue.shortId}: ${issue.title}`,
    '',
    `- Status: ${issue.status}`,
    `- Level: ${issue.level}`,
    `- Culprit: ${issue.culprit || '(none)'}`,
    `- Events: ${issue.count}, users: ${issue.userCount}`,
    `- First seen: ${issue.firstSeen.toISOString()}, last seen: ${issue.lastSeen.toISOString()}`,
    ...(issue.lastRelease ? [`- Last release: ${issue.lastRelease}`] : []),
    `- URL: ${url}`,
  ];
  const frames = topInAppFrames(event);
  if (frames.length > 0) {
    lines.push('', '### Top in-app frames (newest first)', '');
    frames.forEach((frame, i) => {
      lines.push(`${i + 1}. \`${frame.function ?? '?'}\` at ${frameLocation(frame)}`);
      if (frame.context_line !== undefined) lines.push(`   \`${frame.context_line.trim()}\``);
    });
  }
  return `${lines.join('\n')}\n`;
}

export function mcpCall(issue: Issue, environment?: string): string {
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_issue_context', arguments: { shortId: issue.shortId, ...(environment ? { environment } : {}) } },
  };
  return JSON.stringify(call, null, 2);
}

function topInAppFrames(event: StoredEvent | undefined): Frame[] {
  const frames = event ? (primaryException(event.payload)?.stacktrace?.frames ?? event.payload.stacktrace?.frames ?? []) : [];
  const newestFirst = [...frames].reverse();
  const inApp = newestFirst.filter((frame) => frame.in_app === true);
  return (inApp.length > 0 ? inApp : newestFirst).slice(0, TOP_FRAMES);
}
