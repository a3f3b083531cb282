// CommonJS, as an older app or tool loads a package: require() every entry point each installed
// @echo package publishes (Node >= 20.19 loads the ES modules synchronously) and check that it
// exports something.
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const scope = join(process.cwd(), 'node_modules', '@echo');
const loaded = [];
for (const dir of readdirSync(scope)) {
  const manifest = JSON.parse(readFileSync(join(scope, dir, 'package.json'), 'utf8'));
  for (const subpath of Object.keys(manifest.exports)) {
    if (subpath === './package.json') continue;
    const request = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    const exported = require(request);
    if (Object.keys(exported).length === 0) throw new Error(`${request}: require() returned no exports`);
    loaded.push(`${request} (${Object.keys(exported).length})`);
  }
}
if (loaded.length === 0) throw new Error('no @echo package installed');
console.log(`require(): ${loaded.join(', ')}`);
