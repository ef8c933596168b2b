// Times the server rendered for a person without a time zone setting (components/time.tsx marks
// them data-local) get their exact hover text in the browser's own zone.
export function localTimes(): void {
  const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });
  const update = (root: ParentNode) => {
    root.querySelectorAll<HTMLTimeElement>('time[data-local]').forEach((element) => {
      const date = new Date(element.dateTime);
      if (!Number.isNaN(date.getTime())) element.title = format.format(date);
    });
  };
  update(document);
  // htmx 4's name for "content was swapped in"; the event's target holds the new content.
  document.addEventListener('htmx:after:swap', (event) => update((event.target as Element).parentNode ?? document));
}
