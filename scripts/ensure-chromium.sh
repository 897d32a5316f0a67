#!/usr/bin/env bash
# Makes Debian's Chromium available at /usr/bin/chromium for the dashboard's browser test
# (test/browser/). Playwright never downloads a browser here: only the OS package is used.
# Never fails: without Chromium (no root, no apt, no network) the browser test skips itself.
set -u

if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: not installed and apt-get is unavailable; the browser test will be skipped"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "chromium: not installed and not root; the browser test will be skipped"
  exit 0
fi

echo "chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
apt_quiet() { timeout 600 apt-get -q -y -o Dpkg::Use-Pty=0 "$@" >/tmp/ensure-chromium.log 2>&1; }
if ! apt_quiet install --no-install-recommends chromium; then
  # The package lists may be missing or stale on a fresh machine.
  apt_quiet update && apt_quiet install --no-install-recommends chromium
fi

if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
else
  echo "chromium: installation failed (see /tmp/ensure-chromium.log); the browser test will be skipped"
fi
exit 0
