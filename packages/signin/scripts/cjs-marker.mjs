// The CommonJS build sits under a package.json saying so: the package is "type": "module", so without this marker
// Node would load dist/cjs/*.js as ES modules. Run after `tsc -p tsconfig.cjs.json`.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), JSON.stringify({ type: 'commonjs' }) + '\n');
