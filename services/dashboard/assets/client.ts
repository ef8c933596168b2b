// The dashboard's one script, bundled with everything it imports into the hashed app.<hash>.js.
// htmx reads its configuration from the page's htmx-config meta tag when it loads (the layout
// turns its injected indicator stylesheet off; style.css carries those rules instead).
import 'htmx.org';
import { localTimes } from './local-time.ts';
import { sendCsrfWithHtmx } from './csrf-header.ts';
import { copyButtons } from './copy-button.ts';
import { issueKeys } from './issue-keys.ts';
import { logTail } from './log-tail.ts';

sendCsrfWithHtmx();
localTimes();
copyButtons();
issueKeys();
logTail();
