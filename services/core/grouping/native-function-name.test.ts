import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';
import { trimNativeFunctionName } from './native-function-name.ts';

describe('trimNativeFunctionName', () => {
  it.each([
    [
      'Scaleform::GFx::IME::GImeNamesManagerVista::OnActivated(unsigned long,unsigned short,_GUID const &,HKL__ *,unsigned long)',
      'Scaleform::GFx::IME::GImeNamesManagerVista::OnActivated',
    ],
    ['(anonymous namespace)::start()', '(anonymous namespace)::start'],
    ['unsigned int std::vector<int, std::allocator<int>>::size() const', 'std::vector<T>::size'],
    ['Foo::operator<<(std::ostream &)', 'Foo::operator<<'],
    ['Foo::operator()(int) const &', 'Foo::operator()'],
    ['<lambda_5db80dab47756d3e72c2dcd38b80b1dd>::operator()', '<lambda>::operator()'],
    ['<core::option::Option<T> as core::fmt::Debug>::fmt', 'core::option::Option<T>::fmt'],
    ['log_demo::main::h5a6b7c8d9e0f1a2b', 'log_demo::main'],
    ['@objc ViewController.crash(_:) -> ()', 'ViewController.crash'],
    ['_RtlUserThreadStart@8', '_RtlUserThreadStart'],
    ['-[NSApplication run]', '-[NSApplication run]'],
    ['<unknown>', '<unknown>'],
    ['Foo::get() const&& ', 'Foo::get'],
    ['Foo::constant', 'Foo::constant'],
    ['Foo::bar_const', 'Foo::bar_const'],
    ['Foo::f() const const &', 'Foo::f'],
  ])('%s -> %s', (name, trimmed) => {
    expect(trimNativeFunctionName(name)).toBe(trimmed);
  });

  it('takes <Type as Trait> apart eight levels deep, and deeper nesting as template arguments', () => {
    // Each level read the whole name again: 256 levels (a 512-character name) took 0.7 ms a frame.
    expect(trimNativeFunctionName(`${'<'.repeat(8)}A as B${'>::f'.repeat(8)}`)).toBe(`B${'::f'.repeat(8)}`);
    expect(trimNativeFunctionName(`${'<'.repeat(12)}A as B${'>::f'.repeat(12)}`)).toBe(`<T>${'::f'.repeat(9)}`);
    expect(trimNativeFunctionName(`${'<'.repeat(256)}${'>'.repeat(256)}`)).toBe('<T>');
  });

  it('takes any number of trailing qualifiers off, in one backward scan', () => {
    expect(trimNativeFunctionName(`f${'&'.repeat(200_000)}`)).toBe('f');
    expect(trimNativeFunctionName(`f${' const &'.repeat(30_000)}`)).toBe('f');
  });
});

describe('native frames group by their bare function names', () => {
  const hashOf = (frames: object[]) =>
    groupEvent(
      prepareEvent({ platform: 'native', stacktrace: { frames } }, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 }),
    ).grouping.hashes[0];

  it('trims a name with no raw name beside it, keeps one that has one, and skips lambda call operators', () => {
    expect(
      hashOf([
        { function: 'void run(int)' },
        { function: 'Job::exec', raw_function: 'Job::exec(int) const' },
        { function: '<lambda_5db80dab47756d3e72c2dcd38b80b1dd>::operator()' },
      ]),
    ).toBe(md5(['run', 'Job::exec']));
  });
});
