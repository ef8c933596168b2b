import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';

const group = (platform: string, frames: object[]) =>
  groupEvent(prepareEvent({ platform, stacktrace: { frames } }, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 }));
const app = { function: 'checkout', abs_path: 'package:shop/cart.dart', filename: 'cart.dart', in_app: true };

describe('Dart and Flutter frames that say nothing about the bug', () => {
  it("keeps the Dart SDK compiled to JavaScript and sentry-dart's packages out of grouping", () => {
    const dartSdk = {
      function: '_asyncStartSync',
      abs_path: 'org-dartlang-sdk:///lib/_internal/js_runtime/lib/async_patch.dart',
      in_app: true,
    };
    const sentry = (pkg: string) => ({ function: 'Sentry.capture', abs_path: `package:${pkg}/src/x.dart`, in_app: true });
    expect(group('javascript', [dartSdk]).grouping).toEqual({ hashes: [md5([])], strategy: 'fallback' });
    for (const pkg of ['sentry', 'sentry_flutter', 'sentry_dio', 'sentry_drift']) {
      expect(group('other', [app, sentry(pkg)]).grouping.hashes).toEqual([md5(['cart.dart', 'checkout'])]);
    }
  });

  it('marks sentry-dart helper packages and Flutter itself not in-app, but lets them group the system hash', () => {
    const link = { function: 'Link.open', abs_path: 'package:sentry_link/src/link.dart', filename: 'link.dart', in_app: true };
    const { event, grouping } = group('other', [app, link]);
    expect(event.stacktrace!.frames[1]!.in_app).toBe(false);
    expect(grouping.hashes).toEqual([md5(['cart.dart', 'checkout']), md5(['cart.dart', 'checkout', 'link.dart', 'Link.open'])]);
    const flutter = { function: 'build', module: 'packages/flutter/src/widgets/framework', in_app: true };
    expect(group('javascript', [flutter]).event.stacktrace!.frames[0]!.in_app).toBe(false);
  });
});

describe('JVM frameworks are never the application', () => {
  it("marks framework frames not in-app, and keeps Sentry's own Java SDK out of grouping", () => {
    const mine = { module: 'com.shop.Checkout', function: 'pay', in_app: true };
    const spring = { module: 'org.springframework.web.servlet.DispatcherServlet', function: 'doDispatch', in_app: true };
    const sentry = { module: 'io.sentry.example.Application', function: 'main', in_app: true };
    const { event, grouping } = group('java', [spring, mine, sentry]);
    expect(event.stacktrace!.frames.map((frame) => frame.in_app)).toEqual([false, true, false]);
    expect(grouping.hashes).toEqual([
      md5(['com.shop.Checkout', 'pay']),
      md5(['org.springframework.web.servlet.DispatcherServlet', 'doDispatch', 'com.shop.Checkout', 'pay']),
    ]);
  });
});

describe('monitoring agents that wrap every call', () => {
  it('keeps frames under a New Relic or LogRocket directory out of grouping, in any case and with either slash', () => {
    const mine = { function: 'checkout', abs_path: '/srv/app/cart.js', filename: 'cart.js', in_app: true };
    const agents = [
      '/srv/app/node_modules/newrelic/lib/shim.js',
      '/srv/app/vendor/NewRelic-Agent/wrap.js',
      'C:\\app\\node_modules\\@newrelic\\native\\index.js',
      'https://cdn.example.com/LogRocket/build.min.js',
    ].map((abs_path) => ({ function: 'wrapped', abs_path, filename: 'x.js', in_app: true }));
    for (const agent of agents) {
      const { event, grouping } = group('node', [mine, agent]);
      expect(event.stacktrace!.frames[1]!.data).toMatchObject({ ignored_for_grouping: true });
      expect(grouping.hashes).toEqual(group('node', [mine]).grouping.hashes);
    }
    // The name as a file, not a directory, is the application's own code.
    const file = { function: 'report', abs_path: '/srv/app/newrelic.js', filename: 'newrelic.js', in_app: true };
    const { event } = group('node', [mine, file]);
    expect(event.stacktrace!.frames[1]!.data?.ignored_for_grouping).toBeUndefined();
    expect(event.stacktrace!.frames[1]!.in_app).toBe(true);
  });
});
