#!/usr/bin/env bash
# The CLI's whole-list output, measured: `subs list -o json` and the table
# at 1,000, 10,000 and 100,000 subscriptions, for peak memory (max RSS),
# wall time and write calls, against curl + jq following `next` one page at
# a time. The server holds each answer 2 ms (`serve --delay 2`), the round
# trip to a server in the same region.
#
#   cargo build --release && bash benches/cli_list.sh [SIZES...]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGDECK_BIN:-target/release/orgdeck}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

measure() { # label, command...: prints max RSS (MiB) and wall seconds
  local label=$1; shift
  /usr/bin/time -f "%M %e" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
    echo "$label failed:"; cat "$work/err"; return 1; }
  read -r rss wall < "$work/time"
  printf '  %-34s %7.1f MiB  %6.2f s  %s bytes\n' "$label" "$(echo "$rss/1024" | bc -l)" "$wall" "$(wc -c < "$work/out")"
}

curl_jq() { # follows next with curl, collecting rows with jq
  local url="$1/api/projects/@current/subscriptions/?limit=100" rows="$work/rows.jsonl"
  : > "$rows"
  while [ -n "$url" ]; do
    curl -sf -H "Authorization: Bearer $ORGDECK_API_KEY" "$url" > "$work/page"
    jq -c '.results[]' "$work/page" >> "$rows"
    url=$(jq -r '.next // empty' "$work/page")
  done
  jq -s '.' "$rows"
}
export -f curl_jq
export work

for size in "${sizes[@]}"; do
  db="$work/$size.sqlite"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --generate-subscriptions "$size" --delay 2 \
    > "$work/ready" 2> "$work/serve.err" &
  server=$!
  while [ ! -s "$work/ready" ]; do sleep 0.1; done
  base=$(jq -r .base_url "$work/ready")
  export ORGDECK_HOST=$base ORGDECK_CONFIG=$work/none.toml ORGDECK_LOG=$work/log
  ORGDECK_API_KEY=$("$bin" keys create --db "$db" --scopes '*')
  export ORGDECK_API_KEY
  rows=$("$bin" subs list -o json | jq length)
  echo "$rows subscriptions (generated $size):"
  measure "orgdeck subs list -o json" "$bin" subs list -o json
  measure "orgdeck subs list (table)" env COLUMNS=160 "$bin" subs list
  strace -f -c -e trace=write -o "$work/strace" "$bin" subs list -o json > /dev/null 2>&1
  printf '  %-34s %s\n' "write calls, -o json" "$(awk '$NF == "write" {print $4}' "$work/strace")"
  measure "curl + jq following next" bash -c "curl_jq $base"
  kill "$server"; wait "$server" 2>/dev/null || true
  rm -f "$work/ready"
done
