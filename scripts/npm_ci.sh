#!/usr/bin/env bash
# Install the extension's npm packages (vscode-client/node_modules) when package-lock.json changed since the last
# install, then build its bundles (`npm run bundle`: the extension and the charts, vscode-client/media/charts.js,
# which `tilewise run --html` and `tilewise tune --html` inline). Shared by setup.sh and e2e.sh.
set -euo pipefail
cd "$(dirname "$0")/../vscode-client"
# npm ci deletes node_modules each time: only when the lock file changed since the last install
stamp=node_modules/.tilewise-lock.sha256
if [ ! -f "$stamp" ] || ! sha256sum --check --status "$stamp"; then
    npm ci --no-audit --no-fund --loglevel=error
    sha256sum package-lock.json > "$stamp"
fi
npm run --silent bundle
