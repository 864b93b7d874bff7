#!/bin/bash
set -euo pipefail
cat /app/logs/node-*.log \
  | jq -R 'fromjson? | select(type == "object" and has("latency_ms"))' \
  | jq -s '
      group_by(.service)
      | map(
          (map(.latency_ms) | sort) as $lat
          | (length) as $n
          | (map(select(.status >= 500)) | length) as $e
          | {
              key: .[0].service,
              value: {
                requests: $n,
                errors: $e,
                error_rate: (($e / $n * 10000 | round) / 10000),
                p95_latency_ms: $lat[((0.95 * $n) | ceil) - 1],
                max_latency_ms: $lat[-1]
              }
            })
      | from_entries' > /app/summary.json
