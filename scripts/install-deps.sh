#!/usr/bin/env bash
# install-deps.sh - install the Debian packages that building and testing
# ecnwatch need, when any is missing. Run as root on Debian 12 (apt-get).
set -eu
PKGS="build-essential pkg-config libpcap-dev libjansson-dev libncurses-dev libcunit1-dev libmicrohttpd-dev libssl-dev zlib1g-dev liblzma-dev curl
      tshark jq gzip tmux python3 iproute2 util-linux procps chromium python3-jsonschema man-db time
      clang libclang-rt-14-dev prometheus"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
    exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
