// Schema version 10: how many of an issue's events carried each tag value, counted as events
// are recorded (as Bugsink and GlitchTip keep theirs), so the issue page's tag summary reads a
// few rows instead of decoding the payloads of its latest events: those 100 decodes were the
// largest part of the issue page after its queries were mended. Issues recorded before this
// version count only their later events; the page gives each value's share of the events that
// carried its key, which stays true either way.
export default /* sql */ `
CREATE TABLE issue_tag_values (
  issue_id integer NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  key text NOT NULL,
  value text NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (issue_id, key, value)
);
`;
