#!/usr/bin/env bash
# The test command (`npm test`): build, n8n's community-node lint, formatting, n8n's verification
# scanner on the packed tarball, the links of the README, docs/ and codex files, the GitHub Actions workflows,
# the layout's rules, the tests' type check, then the jest suites; finally a check that no secret used by the tests
# appears anywhere in their output.
# `--long` runs only the long property and scale suites (test/**/*.long.test.js), which CI also runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
long=false
if [ "${1:-}" = "--long" ]; then long=true; shift; fi
rm -rf dist
node node_modules/gulp/bin/gulp.js build
if [ "$long" = false ]; then
	# n8n writes its editor's bundled JavaScript into each user folder's .cache; the suites keep their user
	# folders in git-ignored folders of the project, where n8n's lint (whose config must stay the default)
	# would read that bundle too.
	find .e2e .queue .ui .demo .bench -type d -name .cache -prune -exec rm -rf {} + 2>/dev/null || true
	# The checks in two lanes, one per core (each check is one process); each lane's output is shown whole
	# when both are done, and the first failure of a lane ends that lane.
	lanes=$(mktemp -d)
	(
		node node_modules/@n8n/node-cli/bin/n8n-node.mjs lint
		node scripts/check/scan-package.mjs
		node scripts/check/links.mjs
		node scripts/check/workflows.mjs
	) >"$lanes/a" 2>&1 &
	lane_a=$!
	(
		node node_modules/prettier/bin/prettier.cjs --check . --log-level warn
		node scripts/check/layout.mjs
		# The tests' type check: their JavaScript read with the package's types (test/tsconfig.json).
		node node_modules/typescript/bin/tsc -p test
	) >"$lanes/b" 2>&1 &
	lane_b=$!
	checks=0
	wait "$lane_a" || checks=1
	wait "$lane_b" || checks=1
	cat "$lanes/a" "$lanes/b"
	rm -rf "$lanes"
	if [ "$checks" -ne 0 ]; then exit 1; fi
fi
results=$(mktemp)
output=$(mktemp)
status=0
if [ "$long" = true ]; then set -- --testPathIgnorePatterns '/node_modules/' --testMatch '<rootDir>/test/**/*.long.test.js' "$@"; fi
# Jest reports on stderr; with --json it also prints the results on stdout, which only the file needs.
node node_modules/jest/bin/jest.js --json --outputFile="$results" "$@" 2> >(tee "$output" >&2) >/dev/null || status=$?
wait
# The plain closing line CI reads.
node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""))' "$results"
# The token and the Base URL password of the tests must never show in what the tests printed or reported.
if node -e '
const fs = require("fs");
const { TOKEN, BASE_URL_PASSWORD } = require("./test/harness/sandbox");
const text = fs.readFileSync(process.argv[1], "utf8") + fs.readFileSync(process.argv[2], "utf8");
const leaked = [TOKEN, BASE_URL_PASSWORD].filter((secret) => text.includes(secret));
if (leaked.length) { console.error(`secrets: the test output contains ${leaked.length} secret(s) used by the tests`); process.exit(1); }
' "$output" "$results"; then :; else status=1; fi
rm -f "$results" "$output"
exit $status
