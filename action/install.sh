#!/usr/bin/env bash
# The GitHub action's install steps (called from action.yml; tests/distribution runs it the way a
# runner does). It owns where tracelint is installed and the cache key of that install; it never
# lints anything (action/run.sh does).
#
#   install.sh key       print `key=` and `root=` to $GITHUB_OUTPUT for actions/cache
#   install.sh install   build or reuse $TRACELINT_ROOT/bin/tracelint, add it to $GITHUB_PATH and
#                        print `bin=` to $GITHUB_OUTPUT
#
# Inputs (environment, never interpolated into script text):
#   TRACELINT_VERSION   empty: build this action's own checkout ($GITHUB_ACTION_PATH) with
#                       `cargo install --locked --path`; an exact version such as `0.1.0`:
#                       `cargo install --locked tracelint --version =VERSION` from crates.io
#   TRACELINT_ROOT      (install) the `--root` directory computed by `key`
set -euo pipefail

fail() {
    # One annotation on the run (workflow-command data escaped: `%`, CR, LF), then a non-zero exit
    # that fails the step.
    local m="$*"
    m=${m//%/%25}
    m=${m//$'\r'/%0D}
    m=${m//$'\n'/%0A}
    printf '::error title=tracelint install::%s\n' "$m"
    exit 1
}

# Append `name=value` to $GITHUB_OUTPUT (values here never hold a newline).
set_output() {
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
    fi
}

sha256() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum | cut -d' ' -f1
    else
        shasum -a 256 | cut -d' ' -f1
    fi
}

# Checked once, before anything runs in a command substitution (where `fail` could not stop the
# script with its message shown).
check_env() {
    [ -n "${GITHUB_ACTION_PATH:-}" ] || fail "GITHUB_ACTION_PATH is not set: run this script as a step of the tracelint action"
    ACTION_PATH=$GITHUB_ACTION_PATH
    local v=${TRACELINT_VERSION:-}
    # Trim the whitespace a YAML block scalar may leave around the value.
    v=${v#"${v%%[![:space:]]*}"}
    v=${v%"${v##*[![:space:]]}"}
    if [ -n "$v" ] && ! [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]]; then
        fail "input \`version\` must be empty (build this action's checkout) or an exact version such as 0.1.0, not \`$v\`"
    fi
    VERSION=$v
    if [ -z "$VERSION" ] && [ ! -f "$ACTION_PATH/Cargo.lock" ]; then
        fail "no Cargo.lock in $ACTION_PATH: the action builds its own checkout (uses: OWNER/REPO@REF)"
    fi
}

# A digest of what `cargo install --path` builds: the lock file first, then the manifest and every
# file the crate compiles or embeds. The lock file alone would reuse a stale binary when the source
# changes but no dependency does.
source_digest() {
    (
        cd "$ACTION_PATH"
        printf 'Cargo.lock %s\n' "$(sha256 <Cargo.lock)"
        set --
        for p in Cargo.toml askama.toml build.rs README.md src data; do
            if [ -e "$p" ]; then set -- "$@" "$p"; fi
        done
        find "$@" -type f -print0 |
            LC_ALL=C sort -z |
            while IFS= read -r -d '' f; do
                printf '%s %s\n' "$f" "$(sha256 <"$f")"
            done
    ) | sha256
}

cmd_key() {
    local id base
    if [ -n "$VERSION" ]; then
        id="crates-$VERSION"
    else
        id="src-$(source_digest)"
    fi
    base=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}
    set_output key "tracelint-${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}-$id"
    set_output root "$base/tracelint/$id"
}

cmd_install() {
    local v=$VERSION root bin got
    root=${TRACELINT_ROOT:-}
    [ -n "$root" ] || fail "TRACELINT_ROOT is not set: run \`install.sh key\` first"
    bin="$root/bin/tracelint"
    if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
        echo "tracelint: using the cached $bin"
    else
        command -v cargo >/dev/null 2>&1 ||
            fail "cargo is not on PATH: add a Rust toolchain step before this action (for example \`uses: dtolnay/rust-toolchain@stable\`)"
        if [ -n "$v" ]; then
            echo "tracelint: cargo install --locked tracelint --version =$v --root $root"
            cargo install --locked --root "$root" tracelint --version "=$v" ||
                fail "cannot install tracelint $v from crates.io (is that version published, and is crates.io reachable?)"
        else
            echo "tracelint: cargo install --locked --path $ACTION_PATH --root $root"
            cargo install --locked --root "$root" --path "$ACTION_PATH" ||
                fail "cannot build tracelint from $ACTION_PATH (see the cargo output above)"
        fi
    fi
    got=$("$bin" --version 2>/dev/null) || fail "$bin does not run"
    if [ -n "$v" ] && [ "$got" != "tracelint $v" ]; then
        fail "the installed binary reports \`$got\`, not \`tracelint $v\`"
    fi
    echo "tracelint: $got"
    if [ -n "${GITHUB_PATH:-}" ]; then
        printf '%s\n' "$root/bin" >>"$GITHUB_PATH"
    fi
    set_output bin "$bin"
}

check_env
case "${1:-}" in
key) cmd_key ;;
install) cmd_install ;;
*) fail "usage: install.sh key|install" ;;
esac
