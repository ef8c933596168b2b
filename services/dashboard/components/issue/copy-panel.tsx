// "Copy as Markdown" and "Copy as MCP call": a button each (the shared island,
// assets/copy-button.ts, shows it and puts the text on the clipboard) with the text itself in a
// <details>, selectable without JavaScript.
export function CopyBlock({ label, text }: { label: string; text: string }) {
  const id = `copy-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <div class="copy-block">
      {/* The island rewrites .copy-label ("Copied", then "Copy" again); the rest names what is copied. */}
      <button type="button" class="button copy-button" data-copy={id} hidden>
        <span class="copy-label">Copy</span>
        {label.replace(/^Copy/, '')}
      </button>
      <details>
        <summary>{`${label}: show the text`}</summary>
        <pre id={id} class="issue-copy-text" tabIndex={0}>
          {text}
        </pre>
      </details>
    </div>
  );
}
