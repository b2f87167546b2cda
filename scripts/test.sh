#!/usr/bin/env bash
# The test command (`npm test`): build, n8n's community-node lint, then every jest suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf dist
node node_modules/gulp/bin/gulp.js build
node node_modules/@n8n/node-cli/bin/n8n-node.mjs lint
results=$(mktemp)
status=0
# Jest reports on stderr; with --json it also prints the results on stdout, which only the file needs.
node node_modules/jest/bin/jest.js --json --outputFile="$results" "$@" >/dev/null || status=$?
# The plain closing line CI reads.
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""))' "$results"
rm -f "$results"
exit $status
