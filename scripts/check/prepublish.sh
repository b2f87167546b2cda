#!/usr/bin/env bash
# `npm publish` runs this first (prepublishOnly): a clean build, n8n's community-node lint, the links the
# package points users to, and n8n's verification scanner on the packed tarball. Any failure stops the publish.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rm -rf dist
node node_modules/gulp/bin/gulp.js build
node node_modules/@n8n/node-cli/bin/n8n-node.mjs lint
node scripts/check/links.mjs
# npm publish --dry-run passes dry-run on to every npm it starts: the scanner's own npm pack must write its tarball.
env -u npm_config_dry_run node scripts/check/scan-package.mjs
