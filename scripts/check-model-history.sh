#!/usr/bin/env bash
# What the CI job in docs/CI.md runs, step for step: build `chrysalis`, then prove that a store
# at every version of an app's model bundle migrates to the current one, with a JUnit report for
# the CI system and, on GitHub Actions, an annotation per cause and a step summary.
#
#   scripts/check-model-history.sh App/Model.xcdatamodeld [App/Mappings]
#
# CHRYSALIS_CONFIGURATION: the build (release, the default; debug reuses a test build).
# CHRYSALIS_REPORT: the JUnit file (default: check-history.xml). Exits as check-history does:
# 0 when every version migrates, 1 when one does not, 2 on a usage error.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUNDLE.xcdatamodeld [MAPPINGS]" >&2
  exit 2
fi
bundle=$1
mappings=${2:-}
configuration=${CHRYSALIS_CONFIGURATION:-release}
report=${CHRYSALIS_REPORT:-check-history.xml}
package="$(cd "$(dirname "$0")/.." && pwd)"

swift build --package-path "$package" -c "$configuration" --product chrysalis
chrysalis="$(swift build --package-path "$package" -c "$configuration" --show-bin-path)/chrysalis"
"$chrysalis" --version

arguments=(check-history "$bundle" --junit "$report")
if [ -n "$mappings" ]; then arguments+=(--mappings "$mappings"); fi
if [ "${GITHUB_ACTIONS:-}" = "true" ]; then arguments+=(--github); fi
"$chrysalis" "${arguments[@]}"
