#!/usr/bin/env bash
# The CLI's walk of a whole list against the best shell pipeline, at n rows
# and at 2n (issue 33, requirements 4 and 5). On one reference server, in
# the same run:
#
# - `orgdeck subs list -o json`, every subscription as one JSON array;
# - the best pipeline we know: the count from a first request, then one curl
#   process fetching every page by offset at once (`--parallel`, 16 at a
#   time over kept-alive connections, each page to its own file), then jq
#   streaming the rows out of the pages in order (`jq -c '.results[]'`, one
#   row a line: less work than an array).
#
# Each runs RUNS times in turn (the least wall time is kept); printed are
# wall and CPU times (GNU time, the pipeline's children included), peak
# memory, the server's CPU during the run, the machine's load, and the
# ratios: the CLI's time over the pipeline's (issue 33 asks at most 0.3 at
# 90,000 rows) and each one's time at 2n over n (linear: 2.0).
#
#   cargo build --release && bash benches/cli_walk.sh [ROWS] [RUNS]
#
# ROWS is n, the subscriptions listed (default 90000: n·10/9 are generated,
# one in ten deleted); RUNS defaults to 3. DELAY=MS holds every answer that
# long (`serve --delay`), a server farther away than loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${ORGDECK_BIN:-target/release/orgdeck}
rows=${1:-90000}
runs=${2:-3}
delay=${DELAY:-0}
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP # stopped: the server is stopped too

load() { printf 'load %s on %s cores' "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system, 1/100 s

pipeline() { # base: the whole list as JSON lines, on stdout
  local base=$1 pages=$work/pages list="$1/api/projects/@current/subscriptions/"
  rm -rf "$pages" && mkdir -p "$pages"
  local count
  count=$(curl -sf -H "Authorization: Bearer $ORGDECK_API_KEY" "$list?limit=1" | jq .count)
  for ((offset = 0; offset < count; offset += 100)); do
    printf 'url = "%s?limit=100&offset=%d"\noutput = "%s/%010d.json"\n' "$list" "$offset" "$pages" "$offset"
  done > "$work/curl.conf"
  curl -sf --parallel --parallel-max 16 -H "Authorization: Bearer $ORGDECK_API_KEY" -K "$work/curl.conf"
  jq -c '.results[]' "$pages"/*.json
}
export -f pipeline
export work

# label, output file, command...: runs it under GNU time; sets $wall.
measure() {
  local label=$1 out=$2; shift 2
  local from
  from=$(cpu_ticks "$server")
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$out" 2> "$work/err" || {
    echo "$label failed:"; cat "$work/err"; exit 1; }
  local served=$(( $(cpu_ticks "$server") - from ))
  read -r wall user system rss < "$work/time"
  printf '  %-28s wall %6.2f s  CPU %6.2f s  peak %6.1f MiB  server CPU %6.2f s\n' \
    "$label" "$wall" "$(echo "$user + $system" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
    "$(echo "$served / 100" | bc -l)"
}

declare -A best_cli best_pipe
for size in "$rows" $((rows * 2)); do
  generate=$(( (size * 10 + 8) / 9 ))
  db="$work/$size.sqlite"
  "$bin" serve --listen 127.0.0.1:0 --db "$db" --generate-subscriptions "$generate" --delay "$delay" \
    > "$work/ready" 2> "$work/serve.err" &
  server=$!
  while [ ! -s "$work/ready" ]; do
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.err"; exit 1; }
    sleep 0.2
  done
  base=$(jq -r .base_url "$work/ready")
  export ORGDECK_HOST=$base ORGDECK_CONFIG=$work/none.toml ORGDECK_LOG=$work/log
  ORGDECK_API_KEY=$("$bin" keys create --db "$db" --scopes '*')
  export ORGDECK_API_KEY
  count=$(curl -sf -H "Authorization: Bearer $ORGDECK_API_KEY" "$base/api/projects/@current/subscriptions/?limit=1" | jq .count)
  echo "$count subscriptions listed (generated $generate, delay ${delay} ms; $(load)):"
  cli_best=; pipe_best=
  for ((run = 1; run <= runs; run++)); do
    measure "orgdeck subs list -o json" "$work/cli.json" "$bin" subs list -o json
    cli_wall=$wall
    measure "curl --parallel + jq" "$work/pipe.jsonl" bash -c "pipeline $base"
    pipe_wall=$wall
    [ -z "$cli_best" ] || [ "$(echo "$cli_wall < $cli_best" | bc -l)" = 1 ] && cli_best=$cli_wall
    [ -z "$pipe_best" ] || [ "$(echo "$pipe_wall < $pipe_best" | bc -l)" = 1 ] && pipe_best=$pipe_wall
  done
  got_cli=$(jq length "$work/cli.json")
  got_pipe=$(wc -l < "$work/pipe.jsonl")
  [ "$got_cli" = "$count" ] && [ "$got_pipe" = "$count" ] || {
    echo "rows: the CLI gave $got_cli, the pipeline $got_pipe, of $count"; exit 1; }
  best_cli[$size]=$cli_best
  best_pipe[$size]=$pipe_best
  printf '  least of %d: the CLI %.2f s, the pipeline %.2f s: %.2f of its time (issue 33 asks at most 0.3)  (%s)\n' \
    "$runs" "$cli_best" "$pipe_best" "$(echo "$cli_best / $pipe_best" | bc -l)" "$(load)"
  kill "$server"; wait "$server" 2>/dev/null || true; server=
  rm -f "$work/ready" "$db"*
done
large=$((rows * 2))
printf 'Ratios, %d rows against %d (linear: 2.0): the CLI x%.2f, the pipeline x%.2f  (%s)\n' \
  "$large" "$rows" "$(echo "${best_cli[$large]} / ${best_cli[$rows]}" | bc -l)" \
  "$(echo "${best_pipe[$large]} / ${best_pipe[$rows]}" | bc -l)" "$(load)"
