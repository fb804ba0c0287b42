#!/usr/bin/env bash
# The GitHub action's install steps (called from action.yml; tests/distribution runs it the way a
# runner does). It owns where tracelint is installed and the cache key of that install; it never
# lints anything (action/run.sh does).
#
#   install.sh key       print `key=` and `root=` to $GITHUB_OUTPUT for actions/cache
#   install.sh install   reuse, download or build $TRACELINT_ROOT/bin/tracelint, add it to
#                        $GITHUB_PATH and print `bin=` to $GITHUB_OUTPUT
#   install.sh digest    print the source digest of $GITHUB_ACTION_PATH (the release workflow
#                        publishes it as the release asset `source-digest.txt`)
#
# What `install` does when the cache has no binary: the release asset for the runner's OS and
# arch (`tracelint-TARGET.tar.gz`, checked against its `.sha256` file; a mismatch fails the step),
# and only when no asset fits, `cargo install --locked`.
#
# Inputs (environment, never interpolated into script text):
#   TRACELINT_VERSION   empty: this action's own checkout ($GITHUB_ACTION_PATH). When its sources
#                       are those of release vX.Y.Z (X.Y.Z from its Cargo.toml; the release's
#                       `source-digest.txt` equals theirs), that release's asset; otherwise
#                       `cargo install --locked --path`. An exact version such as `0.1.0`: the
#                       asset of release v0.1.0, else `cargo install --locked tracelint --version
#                       =0.1.0` from crates.io
#   TRACELINT_ROOT      (install) the `--root` directory computed by `key`
#   TRACELINT_DOWNLOAD_BASE
#                       (install; for tests and mirrors) where releases are downloaded from, as
#                       BASE/vX.Y.Z/ASSET; http:// is allowed here. Default: the GitHub releases
#                       of the `repository` in the action's Cargo.toml, https only
set -euo pipefail

# One annotation on the run at level $1 (workflow-command data escaped: `%`, CR, LF).
annotate() {
    local level=$1 m
    shift
    m="$*"
    m=${m//%/%25}
    m=${m//$'\r'/%0D}
    m=${m//$'\n'/%0A}
    printf '::%s title=tracelint install::%s\n' "$level" "$m"
}

# An error annotation, then a non-zero exit that fails the step.
fail() {
    annotate error "$@"
    exit 1
}

# A warning annotation; the step goes on.
warn() {
    annotate warning "$@"
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
        fail "input \`version\` must be empty (this action's own ref) or an exact version such as 0.1.0, not \`$v\`"
    fi
    VERSION=$v
    if [ -z "$VERSION" ] && [ ! -f "$ACTION_PATH/Cargo.lock" ]; then
        fail "no Cargo.lock in $ACTION_PATH: the action builds its own checkout (uses: OWNER/REPO@REF)"
    fi
}

# A digest of what `cargo install --path` builds: the lock file, the manifest and every file the
# crate compiles or embeds, each file's SHA-256 and path in path order (one hashing process for
# all). The lock file alone would reuse a stale binary when the source changes but no dependency
# does.
source_digest() {
    local hasher=(sha256sum)
    command -v sha256sum >/dev/null 2>&1 || hasher=(shasum -a 256)
    (
        cd "$ACTION_PATH"
        set --
        for p in .cargo/config.toml Cargo.lock Cargo.toml askama.toml build.rs README.md src data fixtures/demo; do
            if [ -e "$p" ]; then set -- "$@" "$p"; fi
        done
        find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 "${hasher[@]}"
    ) | sha256
}

cmd_key() {
    local id base
    if [ -n "$VERSION" ]; then
        id="release-$VERSION"
    else
        id="src-$(source_digest)"
    fi
    base=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}}
    set_output key "tracelint-${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}-$id"
    set_output root "$base/tracelint/$id"
}

# The release target whose asset runs on this runner (none: build instead).
asset_target() {
    case "${RUNNER_OS:-$(uname -s)}/${RUNNER_ARCH:-$(uname -m)}" in
    Linux/X64 | Linux/x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux/ARM64 | Linux/aarch64) echo aarch64-unknown-linux-gnu ;;
    macOS/X64 | Darwin/x86_64) echo x86_64-apple-darwin ;;
    macOS/ARM64 | Darwin/arm64) echo aarch64-apple-darwin ;;
    *) return 1 ;;
    esac
}

# Where releases come from (BASE/vX.Y.Z/ASSET) and which protocols curl may use; empty BASE: the
# action's Cargo.toml names no GitHub repository, so there is nothing to download.
download_base() {
    local repo
    if [ -n "${TRACELINT_DOWNLOAD_BASE:-}" ]; then
        BASE=${TRACELINT_DOWNLOAD_BASE%/}
        PROTO='=http,https'
        return
    fi
    repo=$(sed -n 's/^repository = "\(https:\/\/github\.com\/[A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]*\)"$/\1/p' "$ACTION_PATH/Cargo.toml" | head -n 1)
    BASE=${repo:+$repo/releases/download}
    PROTO='=https'
}

# Download $1 to $2. Returns 0 on HTTP 200, 2 on 404 (not there), 1 on anything else (said on
# stderr and in FETCH_ERROR).
fetch() {
    local code
    FETCH_ERROR=''
    code=$(curl --silent --show-error --location --proto "$PROTO" --proto-redir '=https' \
        --retry 3 --retry-delay 2 --connect-timeout 20 --max-time 600 \
        --output "$2" --write-out '%{http_code}' "$1") || {
        FETCH_ERROR="cannot download $1 (curl exit $?)"
        return 1
    }
    case $code in
    200) return 0 ;;
    404) return 2 ;;
    *)
        FETCH_ERROR="cannot download $1 (HTTP $code)"
        return 1
        ;;
    esac
}

# Is this action's checkout exactly the sources of the release its Cargo.toml names? Sets
# RELEASED to that version, or leaves it empty (and says why).
check_released_ref() {
    local cv rc=0 want got
    RELEASED=''
    cv=$(sed -n 's/^version = "\([^"]*\)"$/\1/p' "$ACTION_PATH/Cargo.toml" | head -n 1)
    [ -n "$cv" ] || return 0
    fetch "$BASE/v$cv/source-digest.txt" "$WORK/source-digest.txt" || rc=$?
    case $rc in
    0) ;;
    2)
        echo "tracelint: no release v$cv at $BASE: building this checkout"
        return 0
        ;;
    *)
        warn "$FETCH_ERROR: building this checkout instead"
        return 0
        ;;
    esac
    want=$(head -c 200 "$WORK/source-digest.txt" | tr -d '[:space:]')
    got=$(source_digest)
    if [ "$want" = "$got" ]; then
        echo "tracelint: this checkout has the sources of release v$cv"
        RELEASED=$cv
    else
        echo "tracelint: this checkout's sources differ from release v$cv's: building it"
    fi
}

# Install the release asset of version $1 for this runner as $2. Returns 0 when installed, 1 when
# no asset fits (the caller builds instead). An asset whose SHA-256 differs from its .sha256 file,
# or an archive without the binary, stops the step: nothing is installed from it.
install_asset() {
    local v=$1 dest=$2 target asset url rc=0 want got bin
    target=$(asset_target) || {
        echo "tracelint: no release asset for ${RUNNER_OS:-$(uname -s)} ${RUNNER_ARCH:-$(uname -m)}"
        return 1
    }
    asset="tracelint-$target.tar.gz"
    url="$BASE/v$v/$asset"
    fetch "$url.sha256" "$WORK/$asset.sha256" || rc=$?
    case $rc in
    0) ;;
    2)
        echo "tracelint: release v$v has no $asset"
        return 1
        ;;
    *)
        warn "$FETCH_ERROR: building instead"
        return 1
        ;;
    esac
    want=$(head -c 300 "$WORK/$asset.sha256" | cut -d' ' -f1)
    [[ $want =~ ^[0-9a-f]{64}$ ]] || fail "$url.sha256 does not start with a SHA-256 (64 hex digits): not installing $asset"
    rc=0
    fetch "$url" "$WORK/$asset" || rc=$?
    [ "$rc" = 0 ] || fail "${FETCH_ERROR:-$url is missing although its .sha256 file is there}"
    got=$(sha256 <"$WORK/$asset")
    if [ "$got" != "$want" ]; then
        fail "SHA-256 mismatch for $url: the file's is $got, its .sha256 file says $want. The download is corrupt or was tampered with; nothing was installed"
    fi
    echo "tracelint: $asset SHA-256 $got verified"
    mkdir -p "$WORK/unpacked"
    tar -xzf "$WORK/$asset" -C "$WORK/unpacked" || fail "cannot unpack $url"
    bin="$WORK/unpacked/tracelint-$target/tracelint"
    [ -f "$bin" ] && [ ! -L "$bin" ] || fail "$url holds no tracelint-$target/tracelint"
    chmod 755 "$bin"
    if ! "$bin" --version >/dev/null 2>&1; then
        warn "the release binary $asset does not run on this runner: building instead"
        return 1
    fi
    mkdir -p "$(dirname "$dest")"
    cp "$bin" "$dest.tmp"
    mv -f "$dest.tmp" "$dest"
    echo "tracelint: installed $asset from release v$v"
}

cmd_install() {
    local v=$VERSION root bin got release='' expect=$VERSION
    root=${TRACELINT_ROOT:-}
    [ -n "$root" ] || fail "TRACELINT_ROOT is not set: run \`install.sh key\` first"
    bin="$root/bin/tracelint"
    if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
        echo "tracelint: using the cached $bin"
    else
        download_base
        WORK=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/tracelint-install.XXXXXX")
        trap 'rm -rf "$WORK"' EXIT
        if [ -z "$BASE" ]; then
            echo "tracelint: $ACTION_PATH/Cargo.toml names no GitHub repository to download from"
        elif ! command -v curl >/dev/null 2>&1; then
            echo "tracelint: curl is not on PATH: not downloading"
        elif [ -n "$v" ]; then
            release=$v
        else
            check_released_ref
            release=$RELEASED
        fi
        if [ -n "$release" ] && install_asset "$release" "$bin"; then
            expect=$release
        else
            command -v cargo >/dev/null 2>&1 ||
                fail "cargo is not on PATH: add a Rust toolchain step before this action (for example \`uses: dtolnay/rust-toolchain@stable\`)"
            if [ -n "$v" ]; then
                echo "tracelint: cargo install --locked tracelint --version =$v --root $root"
                cargo install --locked --root "$root" tracelint --version "=$v" ||
                    fail "cannot install tracelint $v from crates.io (is that version published, and is crates.io reachable?)"
            else
                echo "tracelint: cargo install --locked --path $ACTION_PATH --root $root"
                # Run from the checkout, so that its build settings (.cargo/config.toml: the
                # allocator's) apply; cargo reads them from the folder it runs in.
                local at_root=$root
                case $at_root in /*) ;; *) at_root=$PWD/$at_root ;; esac
                (cd "$ACTION_PATH" && cargo install --locked --root "$at_root" --path .) ||
                    fail "cannot build tracelint from $ACTION_PATH (see the cargo output above)"
            fi
        fi
    fi
    got=$("$bin" --version 2>/dev/null) || fail "$bin does not run"
    if [ -n "$expect" ] && [ "$got" != "tracelint $expect" ]; then
        fail "the installed binary reports \`$got\`, not \`tracelint $expect\`"
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
digest) source_digest ;;
*) fail "usage: install.sh key|install|digest" ;;
esac
