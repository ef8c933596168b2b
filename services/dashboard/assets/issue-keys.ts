// The Issues page's keyboard (an island: the page works without it, through its links and
// forms): j/k move a focus ring between rows, x ticks the row's box, o or Enter opens it, r/i/s
// resolve, ignore or snooze the ticked rows (or the focused one) by submitting the bulk form
// with that button, ? opens the list of keys. It also runs "select all on this page", shows
// "select all N matching" only once every row is ticked, and submits the project picker on change.
const TYPING =
  'input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), textarea, select, [contenteditable]';

export function issueKeys(): void {
  document.querySelectorAll<HTMLSelectElement>('select[data-autosubmit]').forEach((select) => {
    select.form?.querySelector<HTMLElement>('[data-autosubmit-button]')?.setAttribute('hidden', '');
    select.addEventListener('change', () => select.form?.requestSubmit());
  });
  const table = document.querySelector<HTMLTableElement>('[data-issue-list]');
  const form = document.querySelector<HTMLFormElement>('#bulk-form');
  const help = document.querySelector<HTMLDialogElement>('#issue-keys-help');
  const helpButton = document.querySelector<HTMLButtonElement>('#keys-button');
  if (help && helpButton) {
    helpButton.hidden = false;
    helpButton.addEventListener('click', () => help.showModal());
  }
  const rows = table ? Array.from(table.querySelectorAll<HTMLTableRowElement>('tr[data-issue-row]')) : [];
  const boxes = rows.map((row) => row.querySelector<HTMLInputElement>('input[name=issue]')!);
  const selectPage = document.querySelector<HTMLInputElement>('#select-page');
  const allMatching = document.querySelector<HTMLElement>('[data-select-all-matching]');
  const allMatchingBox = allMatching?.querySelector<HTMLInputElement>('input');

  const sync = () => {
    const ticked = boxes.filter((box) => box.checked).length;
    if (selectPage) {
      selectPage.checked = ticked === boxes.length && ticked > 0;
      selectPage.indeterminate = ticked > 0 && ticked < boxes.length;
    }
    if (allMatching && allMatchingBox) {
      const everyRow = ticked === boxes.length;
      allMatching.hidden = !everyRow;
      if (!everyRow) allMatchingBox.checked = false;
    }
  };
  if (selectPage) {
    selectPage.hidden = false;
    selectPage.addEventListener('change', () => {
      boxes.forEach((box) => (box.checked = selectPage.checked));
      sync();
    });
  }
  boxes.forEach((box) => box.addEventListener('change', sync));
  sync();

  let focused = -1;
  const focusRow = (index: number) => {
    if (rows.length === 0) return;
    focused = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach((row, i) => row.classList.toggle('issue-row-focused', i === focused));
    const link = rows[focused]!.querySelector<HTMLAnchorElement>('a.issue-title');
    link?.focus();
    rows[focused]!.scrollIntoView({ block: 'nearest' });
  };
  // A click or Tab into a row makes it the focused one, so j/k continue from there.
  rows.forEach((row, i) =>
    row.addEventListener('focusin', () => {
      focused = i;
      rows.forEach((other, j) => other.classList.toggle('issue-row-focused', j === i));
    }),
  );

  const act = (action: string) => {
    if (!form) return;
    if (!boxes.some((box) => box.checked) && focused >= 0) boxes[focused]!.checked = true;
    if (!boxes.some((box) => box.checked)) return;
    const button = form.querySelector<HTMLButtonElement>(`button[name=action][value=${action}]`);
    if (button) form.requestSubmit(button);
  };

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as Element | null;
    if (target?.closest(TYPING) || help?.open) return;
    switch (event.key) {
      case 'j':
        focusRow(focused + 1);
        break;
      case 'k':
        focusRow(focused < 0 ? 0 : focused - 1);
        break;
      case 'x':
        if (focused < 0) return;
        boxes[focused]!.checked = !boxes[focused]!.checked;
        sync();
        break;
      case 'o':
      case 'Enter':
        if (focused < 0) return;
        // Enter keeps its own meaning on links and buttons (the focused title link opens by
        // itself); it opens the row only from the row's checkbox or from no control at all.
        if (event.key === 'Enter' && target !== document.body && !target?.matches('tr[data-issue-row] input[name=issue]')) return;
        rows[focused]!.querySelector<HTMLAnchorElement>('a.issue-title')?.click();
        break;
      case 'r':
        act('resolve');
        break;
      case 'i':
        act('ignore');
        break;
      case 's':
        act('snooze');
        break;
      case '?':
        help?.showModal();
        break;
      default:
        return;
    }
    event.preventDefault();
  });
}
