// Schema version 4: uploaded source maps. The state of each artifact bundle assembly (the
// upload CLI polls it by the bundle's SHA-1), and the index of stored files by Debug ID and
// type, with when each last symbolicated an event (retention prunes the unused ones).
export default /* sql */ `
CREATE TABLE bundle_assemblies (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  checksum text NOT NULL,
  state text NOT NULL CHECK (state IN ('assembling', 'ok', 'error')),
  detail text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, checksum)
);

CREATE TABLE source_map_artifacts (
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  debug_id text NOT NULL,
  -- minified_source or source_map
  type text NOT NULL,
  url text NOT NULL,
  blob_key text NOT NULL,
  -- Uncompressed bytes.
  size_bytes bigint NOT NULL,
  bundle_checksum text NOT NULL,
  uploaded_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  PRIMARY KEY (project_id, debug_id, type)
);
`;
