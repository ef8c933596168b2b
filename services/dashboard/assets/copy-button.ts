// Copy buttons (pages/project-parts.tsx CopyBox): rendered hidden, shown here, since without
// JavaScript they could do nothing (the text stays there to select). A click copies the text of
// the element the button names; where the clipboard is refused, the text is selected instead,
// for Ctrl+C.
export function copyButtons(): void {
  const reveal = (root: ParentNode) => {
    root.querySelectorAll<HTMLButtonElement>('button[data-copy]').forEach((button) => (button.hidden = false));
  };
  reveal(document);
  document.addEventListener('htmx:afterSwap', (event) => reveal(event.target as ParentNode));
  document.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-copy]');
    const source = button && document.getElementById(button.dataset.copy ?? '');
    if (!button || !source) return;
    const label = button.querySelector('.copy-label');
    const say = (text: string) => {
      if (!label) return;
      label.textContent = text;
      setTimeout(() => (label.textContent = 'Copy'), 2000);
    };
    const select = () => {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      say('Press Ctrl+C');
    };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(source.textContent ?? '').then(() => say('Copied'), select);
  });
}
