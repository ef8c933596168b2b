// Errata's version, from the package manifest (shown in the banner, the User-Agent, /api/v1).
import manifest from '../../package.json' with { type: 'json' };

export const VERSION: string = manifest.version;
