// The process's one password hasher, so its cap on concurrent hashes holds for the whole
// process: the admin operations and the dashboard's sign-in share it.
import { createPasswordHasher } from '../core/auth/password-hash.ts';

export const passwordHasher = createPasswordHasher();
