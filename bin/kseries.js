#!/usr/bin/env node
// The one place that sets the process exit code.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
