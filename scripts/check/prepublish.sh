#!/usr/bin/env bash
# `npm publish` runs this first (prepublishOnly): a clean build, n8n's community-node lint, the links the
# package points users to, and n8n's verification scanner on the packed tarball. Any failure stops the publish.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rm -rf dist
node node_modules/gulp/bin/gulp.js build
node node_modules/@n8n/node-cli/bin/n8n-node.mjs lint
node scripts/check/links.mjs
node scripts/check/scan-package.mjs
