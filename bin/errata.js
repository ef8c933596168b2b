#!/usr/bin/env node
// The `errata` binary: registers the TypeScript loader, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../services/cli/main.ts');
