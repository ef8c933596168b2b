// The names of agent and upload tokens. A name is an identifier, not prose: typed on a command
// line, put in a URL path (DELETE .../upload-tokens/{name}) and compared as given, so a control
// character or a lone surrogate in one is refused with a reason rather than stored altered.
import { UserInputError } from '../errors.ts';

const MAX_TOKEN_NAME_LENGTH = 100;

export function checkTokenName(name: string): string {
  if (name.length > MAX_TOKEN_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name) || !name.isWellFormed()) {
    throw new UserInputError(
      `a token name (--name; "name" in the API) must be at most ${MAX_TOKEN_NAME_LENGTH} characters of valid Unicode ` +
        'without control characters (no line breaks, tabs or NUL)',
    );
  }
  return name;
}
