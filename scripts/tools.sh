#!/usr/bin/env bash
# Helper for the documentation, lint and release tools pinned in tools/docs.
#
#   scripts/tools.sh install [name...]   build missing tools into bin/ (all three by default)
#   scripts/tools.sh lint-config         check .golangci.yml against golangci-lint's JSON schema
#
# `install` only builds a tool that is missing from bin/ or older than
# tools/docs/go.mod or go.sum, so repeated runs cost nothing. Set FORCE=1 to rebuild.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/bin"
mod="$root/tools/docs"

pkg_of() {
	case "$1" in
	tfplugindocs) echo github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs ;;
	golangci-lint) echo github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
	goreleaser) echo github.com/goreleaser/goreleaser/v2 ;;
	*) echo "unknown tool: $1 (tfplugindocs, golangci-lint, goreleaser)" >&2; return 1 ;;
	esac
}

install() {
	[ "$#" -gt 0 ] || set -- tfplugindocs golangci-lint goreleaser
	mkdir -p "$bin"
	for name in "$@"; do
		pkg="$(pkg_of "$name")"
		if [ -z "${FORCE:-}" ] && [ -x "$bin/$name" ] &&
			[ "$bin/$name" -nt "$mod/go.mod" ] && [ "$bin/$name" -nt "$mod/go.sum" ]; then
			continue
		fi
		echo "building $name ($pkg)" >&2
		(cd "$mod" && GOBIN="$bin" go install "$pkg")
		touch "$bin/$name"
	done
}

# `golangci-lint config verify` downloads the schema from golangci-lint.run;
# use it when that works, else validate offline against the copy of the schema
# in the module cache (needs python3 with the jsonschema and yaml modules).
lint_config() {
	if "$bin/golangci-lint" config verify 2>/dev/null; then
		echo ".golangci.yml: valid (golangci-lint config verify)"
		return
	fi
	dir="$(cd "$mod" && go list -m -f '{{.Dir}}' github.com/golangci/golangci-lint/v2)"
	python3 - "$root/.golangci.yml" "$dir/jsonschema/golangci.jsonschema.json" <<'PY'
import json, sys, yaml, jsonschema
cfg = yaml.safe_load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
errors = list(jsonschema.Draft7Validator(schema).iter_errors(cfg))
for e in errors:
    print("%s: %s: %s" % (sys.argv[1], ".".join(map(str, e.path)) or "(root)", e.message), file=sys.stderr)
if errors:
    sys.exit(1)
print("%s: valid (offline schema %s)" % (sys.argv[1], sys.argv[2]))
PY
}

cmd="${1:-install}"
[ "$#" -gt 0 ] && shift
case "$cmd" in
install) install "$@" ;;
lint-config) lint_config ;;
*) echo "usage: $0 install [tfplugindocs|golangci-lint|goreleaser...] | lint-config" >&2; exit 2 ;;
esac
