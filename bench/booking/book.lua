-- wrk script: POST one booking per request and count the answers by status and problem reason.
-- Every request is a new passenger: a passenger holds one seat per flight, so a repeated passengerId would
-- measure 409 ALREADY_BOOKED instead of bookings. The bearer (BENCH_TOKEN, minted by run.sh) is a staff token: an
-- agent books for the passenger the body names, and staff are not held to the per-account attempt limit.
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer " .. assert(os.getenv("BENCH_TOKEN"), "BENCH_TOKEN is not set")
  prefix = string.format("bench-%d-%d-", os.time(), id)
  sent = 0
  answers = {}
end

function request()
  sent = sent + 1
  return wrk.format(nil, nil, nil, '{"passengerId":"' .. prefix .. sent .. '"}')
end

function response(status, headers, body)
  local key = tostring(status)
  if status ~= 201 then
    local reason = body:match('"reason":"([%u_]+)"')
    if reason then key = key .. " " .. reason end
  end
  answers[key] = (answers[key] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for key, count in pairs(thread:get("answers")) do
      total[key] = (total[key] or 0) + count
    end
  end
  local parts = {}
  for key, count in pairs(total) do
    table.insert(parts, string.format('"%s":%d', key, count))
  end
  io.write(string.format('RESULT {"seconds":%.3f,"requests":%d,"p50_ms":%.2f,"p99_ms":%.2f,"errors":%d,"answers":{%s}}\n',
    summary.duration / 1e6, summary.requests, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    table.concat(parts, ",")))
end
