#!/usr/bin/env bash
# install-deps.sh [--runtime | --list] - install the Debian packages that
# building, running and testing ecnwatch need, when any is missing. Run as
# root on Debian 12 (apt-get).
#   (no option)  everything: building and running, and the tests
#   --runtime    only what building and running ecnwatch needs
#   --list       print both lists and install nothing
set -eu
# building and running: a compiler, the libraries ecnwatch links
RUNTIME="build-essential pkg-config libpcap-dev libncurses-dev libmicrohttpd-dev libssl-dev
         zlib1g-dev liblzma-dev libyaml-dev libcrypt-dev libjansson-dev"
# (libjansson reads a probe's report back, --probe-report; the unit tests and
# fuzz harnesses read the report back with it too)
# the tests only: the unit test framework, the tools the suites drive and
# compare against (tshark, jq, curl, tmux, Prometheus), the headless browser
# the plots are rendered in (chromium, large), clang for the fuzzers, what
# --web-config's test makes its certificates (openssl) and bcrypt hashes
# (whois: mkpasswd) with, and what the VXLAN suite's router marks CE with (an
# NFQUEUE program: libnetfilter-queue-dev, iptables), its offloads are turned
# off with (ethtool) and its captures taken with (tcpdump)
TEST="libcunit1-dev curl tshark jq gzip xz-utils tmux python3 iproute2 util-linux
      procps man-db time python3-jsonschema chromium clang libclang-rt-14-dev prometheus openssl
      whois libnetfilter-queue-dev iptables ethtool tcpdump"
case ${1:-} in
--list)
    echo "runtime:" $RUNTIME
    echo "test:" $TEST
    exit 0
    ;;
--runtime) PKGS=$RUNTIME ;;
"") PKGS="$RUNTIME $TEST" ;;
*)
    echo "install-deps: unknown option '$1' (--runtime, --list, or none)" >&2
    exit 2
    ;;
esac
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
