// The Source maps page's list of uploaded files: one group per Debug ID (one built file: its
// minified source and its map), newest upload first, each file with its size, upload and last
// use, and one Delete per group (the CLI's `deletesourcemaps` deletes the same set).
import type { SourceMapArtifact } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import { CsrfField } from '../components/auth-card.tsx';
import { formatCount } from '../components/formats.ts';
import { RelativeTime } from '../components/time.tsx';

const TYPE_LABEL: Record<SourceMapArtifact['type'], string> = {
  minified_source: 'Minified file',
  source_map: 'Source map',
};

interface StoredMapsProps {
  artifacts: SourceMapArtifact[];
  viewer: User;
  now: Date;
  csrf: string;
  deleteHref: string;
}

export function StoredMaps({ artifacts, viewer, now, csrf, deleteHref }: StoredMapsProps) {
  if (artifacts.length === 0) {
    return (
      <div class="empty-state">
        <p>No source maps stored: create an upload token above and run sentry-cli with what it shows.</p>
      </div>
    );
  }
  const zone = viewer.timeZone;
  return (
    <ul class="map-groups">
      {groupByDebugId(artifacts).map(({ debugId, files }) => (
        <li key={debugId} class="map-group">
          <div class="map-group-top">
            <h3 class="map-debug-id">
              <span class="muted">Debug ID</span> <code>{debugId}</code>
            </h3>
            <form method="post" action={deleteHref}>
              <CsrfField token={csrf} />
              <input type="hidden" name="debugId" value={debugId} />
              <button class="button button-small button-danger" type="submit">
                Delete, cannot be undone<span class="visually-hidden">{` — the files of Debug ID ${debugId}`}</span>
              </button>
            </form>
          </div>
          <div class="table-scroll">
            <table class="table map-files-table">
              <thead>
                <tr>
                  <th scope="col">File</th>
                  <th scope="col" class="numeric">
                    Size
                  </th>
                  <th scope="col">Uploaded</th>
                  <th scope="col">Last used</th>
                </tr>
              </thead>
              <tbody>
                {files.map((file) => (
                  <tr key={file.type}>
                    <td>
                      <span class="map-file-type">{TYPE_LABEL[file.type]}</span> <code class="map-file-url">{file.url}</code>
                    </td>
                    <td class="numeric">{formatBytes(file.sizeBytes)}</td>
                    <td>
                      <RelativeTime date={file.uploadedAt} now={now} zone={zone} />
                    </td>
                    <td>
                      {file.type === 'minified_source' ? (
                        // Only a map is read to symbolicate: its row says when.
                        <span class="muted">–</span>
                      ) : file.lastUsedAt ? (
                        <RelativeTime date={file.lastUsedAt} now={now} zone={zone} />
                      ) : (
                        <span class="muted">Never</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** One group per Debug ID, the newest upload first; the minified file before its map. */
function groupByDebugId(artifacts: SourceMapArtifact[]): Array<{ debugId: string; files: SourceMapArtifact[] }> {
  const groups = new Map<string, SourceMapArtifact[]>();
  for (const artifact of artifacts) groups.set(artifact.debugId, [...(groups.get(artifact.debugId) ?? []), artifact]);
  const latest = (files: SourceMapArtifact[]) => Math.max(...files.map((f) => f.uploadedAt.getTime()));
  return [...groups]
    .map(([debugId, files]) => ({ debugId, files: files.sort((a, b) => a.type.localeCompare(b.type)) }))
    .sort((a, b) => latest(b.files) - latest(a.files) || a.debugId.localeCompare(b.debugId));
}

/** Bytes as a person reads them: 812 B, 4.2 KB, 5.1 MB (powers of 1024). */
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${formatCount(bytes)} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : formatCount(Math.round(value))} ${units[unit]}`;
}
