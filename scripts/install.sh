#!/usr/bin/env bash
# Installs a `chrysalis` that runs anywhere on this kind of Linux, the build folder gone or not:
# the Swift standard library and Foundation linked in (--static-swift-stdlib), the demos'
# resources beside the binary, where the binary looks for them first. It needs only the system's
# libsqlite3, libncursesw and zlib at run time.
#
#   scripts/install.sh PREFIX        # PREFIX/bin/chrysalis and PREFIX/bin/Chrysalis_Demo.resources
#
# CHRYSALIS_SCRATCH: the build folder (default: .build in the package).
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 PREFIX   (installs PREFIX/bin/chrysalis)" >&2
  exit 2
fi
prefix=$1
package="$(cd "$(dirname "$0")/.." && pwd)"
scratch=${CHRYSALIS_SCRATCH:-$package/.build}
build=(swift build --package-path "$package" --scratch-path "$scratch" -c release --static-swift-stdlib)

"${build[@]}" --product chrysalis
bin="$("${build[@]}" --show-bin-path)"
mkdir -p "$prefix/bin"
install -m 0755 "$bin/chrysalis" "$prefix/bin/chrysalis"
for resources in "$bin"/*.resources; do
  rm -rf "$prefix/bin/$(basename "$resources")"
  cp -R "$resources" "$prefix/bin/"
done
echo "installed $("$prefix/bin/chrysalis" --version) at $prefix/bin/chrysalis"
