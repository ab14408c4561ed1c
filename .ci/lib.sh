# shellcheck shell=bash
# What .ci/run and .ci/smoke share, sourced from the project root after experiments/lib/init.sh.

# install_missing COMMAND PACKAGE: installs the Debian package PACKAGE when COMMAND is not on the PATH.
APT_UPDATED=false
install_missing() {
  local sudo=()
  command -v "$1" >/dev/null && return 0
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "ci: installing $2 (Debian package)"
  if ! $APT_UPDATED; then
    "${sudo[@]}" apt-get update -qq
    APT_UPDATED=true
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
