#!/usr/bin/env bash
# Every client walk at n rows and at 2n (issue 33, requirements 2 and 5):
# time and peak memory of each command against one reference server per
# size, and the ratios of 2n to n. Linear is 2.0 in time (the issue asks
# at most 2.2) and flat in memory (at most 10 MiB more at 2n); `plan` and
# `export` hold a compact form of each subscription, and so does `apply`:
# the script prints their memory per subscription (the growth from n to
# 2n over n). The subscriptions and the roles are exported, planned and
# applied (nothing to do: the file must come back unchanged) in files of
# their own (together they pass the 64 MiB an as-code file may be at
# 180,000).
#
#   cargo build --release && bash benches/client_walks.sh [ROWS] [RUNS]
#
# ROWS is n (default 90000): n listed subscriptions (n·10/9 generated, one
# in ten deleted), n members, in 10 generated roles (each member in one to
# three). RUNS (default 3): each command runs that many times in turn, and
# the least wall time and least peak memory are kept (other work on a
# shared machine only ever adds to them). The machine's load is printed
# beside each size. Commands that read lists whole run with
# --max-held-mib 4096 and --max-answer-mib 2048 (a page of roles embeds
# every membership, as PostHog's does): what they hold is measured, not
# refused.
# REVIEW=1 adds `access review` (every member times every resource of
# every project, read in answers as large: slow at these sizes).
# ONLY=TEXT measures only the commands whose label holds TEXT (e.g.
# `REVIEW=1 ONLY=review` for the access review alone).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGDECK_BIN:-target/release/orgdeck}
rows=${1:-90000}
runs=${2:-3}
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP # stopped: the server is stopped too

load() { printf 'load %s on %s cores' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"; }

declare -A wall peak
labels=()

# label, expected exit codes (space separated), command...: the least wall
# time and peak memory of RUNS runs into wall[label,size] and peak[label,size].
measure() {
  local label=$1 codes=$2; shift 2
  local best_wall= best_peak= run code
  if [ -n "${ONLY:-}" ] && [[ $label != *"$ONLY"* ]]; then return 0; fi
  for ((run = 1; run <= runs; run++)); do
    code=0
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || code=$?
    if [[ " $codes " != *" $code "* ]]; then
      echo "$label: exit $code"; tail -5 "$work/err"; exit 1
    fi
    read -r w m < <(tail -1 "$work/time")
    [ -z "$best_wall" ] || [ "$(echo "$w < $best_wall" | bc -l)" = 1 ] && best_wall=$w
    [ -z "$best_peak" ] || [ "$m" -lt "$best_peak" ] && best_peak=$m
  done
  wall[$label,$size]=$best_wall
  peak[$label,$size]=$best_peak
  [ "$size" = "$rows" ] && labels+=("$label")
  printf '  %-34s wall %7.2f s  peak %7.1f MiB\n' "$label" "$best_wall" "$(echo "$best_peak / 1024" | bc -l)"
}

for size in "$rows" $((rows * 2)); do
  generate=$(( (size * 10 + 8) / 9 ))
  db="$work/$size.sqlite"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --generate-subscriptions "$generate" \
    --generate-members "$size" --generate-roles 10 > "$work/ready" 2> "$work/serve.err" &
  server=$!
  while [ ! -s "$work/ready" ]; do
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.err"; exit 1; }
    sleep 0.2
  done
  base=$(jq -r .base_url "$work/ready")
  export ORGDECK_HOST=$base ORGDECK_CONFIG=$work/none.toml ORGDECK_LOG=$work/log
  ORGDECK_API_KEY=$("$bin" keys create --db "$db" --scopes '*')
  export ORGDECK_API_KEY
  email=$(curl -sf -H "Authorization: Bearer $ORGDECK_API_KEY" \
    "$base/api/organizations/@current/members/?limit=1&offset=$((size / 2))" | jq -r '.results[0].user.email')
  echo "$size rows ($(load)):"
  measure "subs list -o json" 0 "$bin" subs list -o json
  measure "subs list" 0 "$bin" subs list
  measure "people list -o json" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 people list -o json
  measure "people list --no-role" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 people list --no-role
  # Subscriptions and roles in files of their own: both in one pass the
  # 64 MiB an as-code file may hold at 180,000 rows.
  measure "export --subscriptions" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 export --subscriptions "$work/subs.toml"
  measure "plan subscriptions (nothing to do)" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 plan "$work/subs.toml"
  measure "plan subscriptions, default budget" 0 "$bin" plan "$work/subs.toml"
  # Applies nothing (the file is what the server holds): exit 0, the file
  # unchanged.
  if [ -f "$work/subs.toml" ]; then
    exported=$(sha256sum < "$work/subs.toml")
    measure "apply subscriptions (nothing to do)" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 apply "$work/subs.toml" --yes
    if [ "$(sha256sum < "$work/subs.toml")" != "$exported" ]; then
      echo "apply subscriptions (nothing to do) changed the file"; exit 1
    fi
  fi
  measure "export --roles" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 export --roles "$work/roles.toml"
  measure "plan roles (nothing to do)" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 plan "$work/roles.toml"
  # Applies nothing (the file is what the server holds): exit 0, the
  # file unchanged.
  if [ -f "$work/roles.toml" ]; then
    exported=$(sha256sum < "$work/roles.toml")
    measure "apply roles (nothing to do)" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 apply "$work/roles.toml" --yes
    if [ "$(sha256sum < "$work/roles.toml")" != "$exported" ]; then
      echo "apply roles (nothing to do) changed the file"; exit 1
    fi
  fi
  measure "people offboard --dry-run" "0" "$bin" --max-held-mib 4096 --max-answer-mib 2048 people offboard "$email" --dry-run
  if [ "${REVIEW:-0}" = 1 ]; then
    measure "access review -o json" 0 "$bin" --max-held-mib 4096 --max-answer-mib 2048 access review -o json --budget none
  fi
  echo "  ($(load))"
  kill "$server"; wait "$server" 2>/dev/null || true; server=
  rm -f "$work/ready" "$db"*
done
large=$((rows * 2))
echo "Ratios, $large rows against $rows (linear: time x2.0, at most x2.2; memory at most 10 MiB more):"
for label in "${labels[@]}"; do
  printf '  %-34s time x%.2f  memory %+7.1f MiB' "$label" \
    "$(echo "${wall[$label,$large]} / ${wall[$label,$rows]}" | bc -l)" \
    "$(echo "(${peak[$label,$large]} - ${peak[$label,$rows]}) / 1024" | bc -l)"
  case $label in
    export*subscriptions|plan\ subscriptions*|apply\ subscriptions*) printf '  (%.0f bytes a subscription)' \
      "$(echo "(${peak[$label,$large]} - ${peak[$label,$rows]}) * 1024 / $rows" | bc -l)" ;;
  esac
  echo
done
echo "($(load))"
