#!/usr/bin/env bash
# The GitHub action's lint step (called from action.yml; tests/distribution runs it the way a
# runner does). It owns turning the action's inputs into one `tracelint check` argument list, the
# step's outputs and its pass/fail decision; what is found and how it is printed belong to the
# CLI (`--output-format github` writes the annotations and the job summary).
#
# Inputs arrive as environment variables and are only ever used as whole words of an argument
# list: nothing is evaluated by a shell, and globs are left for tracelint to expand.
#   INPUT_TRACES, INPUT_TRANSCRIPT  traces (files, directories, globs), split on whitespace
#   INPUT_TOOLS                     schema sources, one per line
#   INPUT_INPUT_FORMAT              auto (default: tracelint.toml or content decides) or a format
#   INPUT_OUTPUT_FORMAT             the report file's format: sarif (default), json, html or text
#   INPUT_FORMAT                    the older name for it (text, json, sarif; html too)
#   INPUT_REPORT_PATH               the report file (default: a fresh folder in $RUNNER_TEMP)
#   INPUT_FAIL_ON                   hard_defect | hard_event | candidate | never | empty
#   INPUT_FAIL_ON_BLOCKERS          the older switch: false = fail-on never, true = by fail-on
#   INPUT_CONFIG                    a tracelint.toml to use instead of the nearest one
#   INPUT_ARGS                      extra flags, split on whitespace
#   TRACELINT_BIN                   the binary (default: `tracelint` on PATH)
# Outputs ($GITHUB_OUTPUT): exit-code, findings-count, hard-defects, report-path. The counts are
# read from a `--json` side output with jq.
#
# Exit status: 0 when tracelint exits 0; tracelint's 1 or 2 when `fail-on` is not `never`; 3 (an
# input or usage error) always; any other code as it is.
set -euo pipefail

# Workflow-command data escaping: `%`, CR and LF.
escape_data() {
    local m="$1"
    m=${m//%/%25}
    m=${m//$'\r'/%0D}
    m=${m//$'\n'/%0A}
    printf '%s' "$m"
}

# A random heredoc delimiter, so that no value (a report path is the caller's) can end its own
# entry in $GITHUB_OUTPUT and add another.
DELIM="tracelint_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"

set_output() {
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
        printf '%s<<%s\n%s\n%s\n' "$1" "$DELIM" "$2" "$DELIM" >>"$GITHUB_OUTPUT"
    fi
}

# A problem with the action's own inputs: annotate, report exit code 3 (usage error) and stop.
usage_error() {
    printf '::error title=tracelint action::%s\n' "$(escape_data "$*")"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        printf '## tracelint\n\nThe action could not run tracelint: %s\n' "$*" >>"$GITHUB_STEP_SUMMARY"
    fi
    set_output exit-code 3
    exit 3
}

trim() {
    local s="$1"
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

if [ -n "${GITHUB_WORKSPACE:-}" ]; then
    cd "$GITHUB_WORKSPACE"
fi

command -v jq >/dev/null 2>&1 || usage_error "jq is not on PATH: the action reads its outputs from the JSON report with jq"

# Whitespace-separated words; `read -a` does no pathname expansion and no other evaluation.
traces=()
extra=()
read -r -d '' -a traces <<<"${INPUT_TRACES:-} ${INPUT_TRANSCRIPT:-}" || true
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
if [ "${#traces[@]}" -eq 0 ]; then
    usage_error "input \`traces\` (or \`transcript\`) is empty: name the trace files, directories or globs to lint"
fi

# Schema sources: one per line, since `mcp-stdio:` commands contain spaces.
tools=()
while IFS= read -r line || [ -n "$line" ]; do
    line=$(trim "$line")
    if [ -n "$line" ]; then tools+=(--tools "$line"); fi
done <<<"${INPUT_TOOLS:-}"

output_format=$(trim "${INPUT_OUTPUT_FORMAT:-sarif}")
format=$(trim "${INPUT_FORMAT:-}")
if [ -n "$format" ]; then
    # The older `format` input names the report file's format; `output-format` left at its default
    # gives way to it, a different explicit one is a contradiction.
    if [ -n "$(trim "${INPUT_OUTPUT_FORMAT:-}")" ] && [ "$output_format" != sarif ] && [ "$output_format" != "$format" ]; then
        usage_error "inputs \`format\` ($format) and \`output-format\` ($output_format) disagree: give one of them"
    fi
    output_format=$format
fi
case "$output_format" in
sarif | json | html | text) ;;
*) usage_error "input \`output-format\` (or \`format\`) must be sarif, json, html or text, not \`$output_format\`" ;;
esac

fail_on=$(trim "${INPUT_FAIL_ON:-}")
case "$fail_on" in
"" | hard_defect | hard_event | candidate | never) ;;
*) usage_error "input \`fail-on\` must be hard_defect, hard_event, candidate or never, not \`$fail_on\`" ;;
esac

blockers=$(trim "${INPUT_FAIL_ON_BLOCKERS:-}")
case "$blockers" in
"") ;;
false)
    if [ -n "$fail_on" ] && [ "$fail_on" != never ]; then
        usage_error "input \`fail-on-blockers: false\` reports without failing, but \`fail-on: $fail_on\` asks to fail: give one of them"
    fi
    fail_on=never
    ;;
true)
    if [ "$fail_on" = never ]; then
        usage_error "input \`fail-on-blockers: true\` asks to fail, but \`fail-on: never\` never does: give one of them"
    fi
    ;;
*) usage_error "input \`fail-on-blockers\` must be true or false, not \`$blockers\`" ;;
esac

work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/tracelint.XXXXXX")
report=$(trim "${INPUT_REPORT_PATH:-}")
if [ -z "$report" ]; then
    report="$work/tracelint.$output_format"
fi
case "$report" in
/*) ;;
*) report="$PWD/$report" ;;
esac
mkdir -p -- "$(dirname -- "$report")"
# A report left by an earlier run must not pass for this one's if tracelint stops early.
rm -f -- "$report"

args=(check --output-format github)
case "$output_format" in
sarif) args+=(--sarif "$report") ;;
html) args+=(--html "$report") ;;
text) args+=(--text "$report") ;;
json) ;;
esac
if [ "$output_format" = json ]; then
    json=$report
else
    json="$work/outputs.json"
fi
args+=(--json "$json")

input_format=$(trim "${INPUT_INPUT_FORMAT:-auto}")
# `auto` leaves the choice to tracelint.toml's `input-format`, else to content detection.
if [ -n "$input_format" ] && [ "$input_format" != auto ]; then
    args+=(--input-format "$input_format")
fi
if [ -n "$fail_on" ] && [ "$fail_on" != never ]; then
    args+=(--fail-on "$fail_on")
fi
config=$(trim "${INPUT_CONFIG:-}")
if [ -n "$config" ]; then
    args+=(--config "$config")
fi
args+=(${tools[@]+"${tools[@]}"} ${extra[@]+"${extra[@]}"} -- "${traces[@]}")

bin=${TRACELINT_BIN:-tracelint}
status=0
"$bin" "${args[@]}" || status=$?

set_output exit-code "$status"
if [ -s "$json" ] && counts=$(jq -r '"\(.findings | length) \(.summary.hard_defect)"' "$json" 2>/dev/null); then
    set_output findings-count "${counts% *}"
    set_output hard-defects "${counts#* }"
else
    # tracelint stopped before it could report (a usage error, a crash): say so where people look.
    printf '::error title=tracelint::tracelint exited with code %s before writing a report; see the log above\n' "$status"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        printf '## tracelint\n\ntracelint exited with code %s before writing a report; see the step log.\n' "$status" >>"$GITHUB_STEP_SUMMARY"
    fi
fi
if [ -f "$report" ]; then
    set_output report-path "$report"
fi

case "$status" in
0) exit 0 ;;
1 | 2)
    if [ "$fail_on" = never ]; then
        if [ "$blockers" = false ]; then
            echo "tracelint: exit $status, not failing the step (fail-on-blockers: false)"
        else
            echo "tracelint: exit $status, not failing the step (fail-on: never)"
        fi
        exit 0
    fi
    exit "$status"
    ;;
*) exit "$status" ;;
esac
