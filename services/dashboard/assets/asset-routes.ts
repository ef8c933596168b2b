// GET /assets/<name>.<hash>.<ext>: the dashboard's script and stylesheet from memory. The hash
// in the name changes with the bytes, so a browser may keep each one for a year without asking
// again; gzipped when the browser accepts it.
import type Koa from 'koa';
import { ASSET_PREFIX, type AssetSet } from './asset-store.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function serveAsset(ctx: Koa.Context, assets: AssetSet): void {
  ctx.state.route = `${ASSET_PREFIX}:name`;
  const asset = assets.byName.get(ctx.path.slice(ASSET_PREFIX.length));
  if (!asset || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
    ctx.status = 404;
    ctx.type = 'text/plain';
    ctx.body = `no such asset: ${ctx.path.slice(0, 200)} (asset names change with every build; reload the page)\n`;
    return;
  }
  ctx.set('Cache-Control', IMMUTABLE);
  ctx.set('Vary', 'Accept-Encoding');
  // The name is the hash of the bytes, so it serves as the entity tag.
  ctx.set('ETag', `"${asset.name}"`);
  if (ctx.get('If-None-Match') === `"${asset.name}"`) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.contentType;
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = asset.gzipped;
  } else {
    ctx.body = asset.body;
  }
}
