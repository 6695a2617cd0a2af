#!/usr/bin/env bash
# `subs health` at scale, measured on the release binary against the
# reference server in its own process (issue 29 req 8):
#
# - a complete first look (`--budget off --full`) at each size: the
#   client's CPU (user + system) per subscription, its peak memory, its
#   wall time and exit code;
# - at the largest size, a fresh look capped at 1,000 delivery reads
#   (`--max-requests 1000`): whether every subscription the complete look
#   found failing or partial is among what those 1,000 found.
#
#   cargo build --release && bash benches/health_look.sh [SIZES...]   (generated: 1,000 and 100,000, of which 900 and 90,000 not deleted)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGDECK_BIN:-target/release/orgdeck}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 100000)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP # stopped: the server is stopped too

look() { # label, state dir, health flags...: the JSON answer in $work/answer.json
  local label=$1 state=$2; shift 2
  local status=0
  ORGDECK_STATE_DIR=$state /usr/bin/time -f "%M %e %U %S" -o "$work/time" \
    "$bin" subs health -o json "$@" > "$work/answer.json" 2> "$work/err" || status=$?
  # 3: it found some failing; 4: not complete (a cap); both are answers.
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ] && [ "$status" -ne 4 ]; then
    echo "$label failed ($status):"; cat "$work/err"; return 1
  fi
  read -r rss wall user system < <(tail -1 "$work/time")
  local total
  total=$(jq .total "$work/answer.json")
  printf '  %-24s %6d subscriptions  %6.1f s  %6.1f MiB  CPU %6.2f s = %.3f ms a subscription  exit %d\n' \
    "$label" "$total" "$wall" "$(echo "$rss/1024" | bc -l)" "$(echo "$user+$system" | bc -l)" \
    "$(echo "1000*($user+$system)/$total" | bc -l)" "$status"
}

unhealthy() { # the ids a JSON answer found failing or partial, sorted
  jq -r '.subscriptions[] | select(.health == "failing" or .health == "partial") | .id' "$1" | sort -n
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for size in "${sizes[@]}"; do
  db="$work/$size.sqlite"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --generate-subscriptions "$size" \
    > "$work/ready" 2> "$work/serve.err" &
  server=$!
  while [ ! -s "$work/ready" ]; do sleep 0.1; done
  export ORGDECK_HOST=$(jq -r .base_url "$work/ready") ORGDECK_CONFIG=$work/none.toml ORGDECK_LOG=$work/log
  ORGDECK_API_KEY=$("$bin" keys create --db "$db" --scopes '*')
  export ORGDECK_API_KEY
  echo "generated $size:"
  look "complete first look" "$work/state-$size" --budget off --full --all
  cp "$work/answer.json" "$work/complete.json"
  if [ "$size" = "${sizes[-1]}" ]; then
    look "the 1,000 most likely" "$work/capped-$size" --budget off --max-requests 1000 --all
    unhealthy "$work/complete.json" > "$work/bad"
    unhealthy "$work/answer.json" > "$work/found"
    printf '  failing or partial in the complete look: %d; among the first 1,000 read: %d; missed: %s\n' \
      "$(wc -l < "$work/bad")" "$(comm -12 "$work/bad" "$work/found" | wc -l)" \
      "$(comm -23 "$work/bad" "$work/found" | tr '\n' ' ')"
  fi
  kill "$server"; wait "$server" 2>/dev/null || true
  rm -f "$work/ready"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
