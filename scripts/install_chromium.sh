#!/usr/bin/env bash
# Debian's Chromium for the browser test (tests/train/serve/test_web_browser.py drives it with Playwright for Python,
# which the web extra installs). `make setup` runs this; it does nothing where a chromium is already on the PATH or
# SPADES_CHROMIUM names one. Where it cannot install, it says so in one line and exits 1 (setup goes on).
set -euo pipefail
if [ -n "${SPADES_CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: no apt-get here: install Chromium yourself and set SPADES_CHROMIUM to it (tests/train/serve/test_web_browser.py needs it)" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: installing Chromium needs root: run 'apt-get install chromium' as root, or set SPADES_CHROMIUM" >&2
    exit 1
  fi
  sudo="sudo"
fi
echo "setup: installing Debian's chromium for the browser test (apt-get)"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
