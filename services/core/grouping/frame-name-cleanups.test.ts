import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';
import { groupingModule } from './frame-name-cleanups.ts';

/** The hash of a stack trace of the given frames on the given platform. */
const hashOf = (platform: string, ...frames: object[]) =>
  groupEvent(prepareEvent({ platform, stacktrace: { frames } }, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 })).grouping
    .hashes[0];

describe('generated parts of frame names do not split issues', () => {
  it.each([
    ['com.example.Api$$EnhancerBySpringCGLIB$$1ebdddb0', 'com.example.Api$$EnhancerBySpringCGLIB$$<auto>'],
    ['com.example.Api$$EnhancerByGuice$$ae46b1bf', 'com.example.Api$$EnhancerByGuice$$<auto>'],
    [
      'com.example.Api$$EnhancerByGuice$$ae46b1bf$$FastClassByGuice$$caceacd2',
      'com.example.Api$$EnhancerByGuice$$<auto>$$FastClassByGuice$$<auto>',
    ],
    ['com.example.model.User$HibernateProxy$oRWxjAWT', 'com.example.model.User$HibernateProxy$<auto>'],
    ['com.example.Entries_$$_javassist_seam_74', 'com.example.Entries_$$_javassist<auto>'],
    ['sun.reflect.GeneratedSerializationConstructorAccessor1', 'sun.reflect.GeneratedSerializationConstructorAccessor<auto>'],
    ['sun.reflect.GeneratedMethodAccessor12345', 'sun.reflect.GeneratedMethodAccessor'],
    ['jdk.internal.reflect.GeneratedMethodAccessor7', 'jdk.internal.reflect.GeneratedMethodAccessor'],
    ['myapp.core$fn__12345', 'myapp.core$fn__<auto>'],
  ])('Java module %s groups as %s', (module, grouped) => {
    expect(hashOf('java', { module, function: 'invoke' })).toBe(md5([grouped, 'invoke']));
  });

  it('reads a long Java module of word characters once, not once per way to split it', () => {
    // `$$` and 511 `By` took 0.18-0.3 ms through Sentry's lazy pattern: 100,000 of them over 30 s
    // (this test timed out); the lookahead version reads each in one pass.
    const hostile = `$$${'By'.repeat(511)}`;
    // Each one a new text: V8 keeps the results of a global replace on the text it last saw.
    let changed = 0;
    for (let i = 0; i < 100_000; i++) if (groupingModule(`m${i}${hostile}`, 'java') !== `m${i}${hostile}`) changed++;
    expect(changed).toBe(0);
    expect(groupingModule(`${hostile}$$0f_1`, 'java')).toBe(`${hostile}$$<auto>`);
    expect(groupingModule('a$$CGLIB$$0f', 'java')).toBe('a$$CGLIB$$0f');
    expect(groupingModule('a$$xBy$$0f.$$yCGLIB$$a1', 'java')).toBe('a$$xBy$$0f.$$yCGLIB$$<auto>');
  });

  it('drops Java lambda modules and functions, and cleans Javassist file names', () => {
    expect(hashOf('java', { module: 'com.example.Api$$Lambda$12/0x1', filename: 'Api.java', function: 'run' })).toBe(
      md5(['api.java', 'run']),
    );
    expect(hashOf('java', { module: 'com.example.Api', function: 'lambda$main$0' })).toBe(md5(['com.example.Api']));
    expect(hashOf('java', { filename: 'Entries_$$_javassist_seam_74.java', function: 'fn' })).toBe(
      md5(['entries_$$_javassist<auto>.java', 'fn']),
    );
  });

  it('strips the numbers Ruby gives ERB template methods, and names blocks alike', () => {
    expect(hashOf('ruby', { filename: 'foo.html.erb', function: '_foo_html_erb__3327151541118998292_70361296749460' })).toBe(
      md5(['foo.html.erb', '_foo_html_erb']),
    );
    expect(hashOf('ruby', { filename: 'jobs.rb', function: 'block (2 levels) in perform' })).toBe(md5(['jobs.rb', 'block']));
  });

  it('ignores PHP closures and anonymous classes, keeping an anonymous class its method name', () => {
    expect(hashOf('php', { filename: 'a.php', function: '[Anonymous function]' })).toBe(md5(['a.php']));
    expect(hashOf('php', { filename: 'a.php', function: 'class@anonymous\u0000/srv/a.php:3$0::handle' })).toBe(md5(['a.php']));
    expect(hashOf('php', { filename: 'a.php', function: 'class@anonymous/srv/a.php:3$0::handle' })).toBe(
      md5(['a.php', 'handle']),
    );
  });

  it('ignores unknown native functions and prefers the raw name in C#', () => {
    expect(hashOf('native', { filename: 'main.cpp', function: '<unknown>' })).toBe(md5(['main.cpp']));
    expect(hashOf('csharp', { module: 'App', function: 'Run', raw_function: 'Run(int)' })).toBe(md5(['App', 'Run(int)']));
  });
});
