#!/usr/bin/env bash
# Installs the Debian packages steprdu needs, and any named as arguments (`make fuzz` adds clang), or says
# exactly what to run when not root.
set -euo pipefail
pkgs=(cmake g++ make pkg-config libsystemc-dev libboost-dev libboost-program-options-dev
      libboost-context-dev libfmt-dev libyaml-cpp-dev nlohmann-json3-dev libgtest-dev parallel
      python3-matplotlib python3-dev pybind11-dev python3-numpy python3-pandas python3-pytest "$@")
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "steprdu: missing Debian packages: ${missing[*]}" >&2
    echo "steprdu: run as root:  $cmd" >&2
    exit 1
fi
echo "steprdu: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
