-- The wrk script of interop/loadbench (-client wrk): posts the benchmark's
-- JSON-RPC or HTTP+JSON request, with a message id unique per request, and
-- checks every answer (a completed task; for a stream, the expected number
-- of events ending with the COMPLETED state). Arguments after "--":
-- body prefix, body suffix, events of a stream (0: a unary answer), Accept.
-- done() prints one line the tool parses.

local threads = {}
local next_thread = 0

function setup(thread)
  next_thread = next_thread + 1
  thread:set("thread_id", next_thread)
  table.insert(threads, thread)
end

function init(args)
  prefix, suffix, events, accept = args[1], args[2], tonumber(args[3]), args[4]
  counter, bad, first_bad = 0, 0, ""
  headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0", ["Accept"] = accept }
  tag = string.format("wrk%x-%d-", math.floor(os.time()), thread_id)
end

function request()
  counter = counter + 1
  return wrk.format("POST", nil, headers, prefix .. tag .. counter .. suffix)
end

local function fail(status, body)
  bad = bad + 1
  if first_bad == "" then
    first_bad = "HTTP " .. status .. ": " .. string.sub(body, 1, 200)
  end
end

function response(status, headers, body)
  if status ~= 200 then
    return fail(status, body)
  end
  if events == 0 then
    if not string.find(body, "TASK_STATE_COMPLETED", 1, true) then
      fail(status, body)
    end
    return
  end
  local n, last = 0, ""
  for line in string.gmatch(body, "[^\n]+") do
    if string.sub(line, 1, 5) == "data:" then
      n, last = n + 1, line
    end
  end
  if n ~= events or not string.find(last, "TASK_STATE_COMPLETED", 1, true) then
    fail(status, n .. " events, last " .. string.sub(last, 1, 150))
  end
end

function done(summary, latency, requests)
  local nbad, first = 0, ""
  for _, t in ipairs(threads) do
    nbad = nbad + t:get("bad")
    if first == "" then first = t:get("first_bad") end
  end
  local e = summary.errors
  io.write(string.format("loadbench-wrk requests=%d duration_us=%d p50_us=%d p99_us=%d bad=%d socket_errors=%d first_bad=%s\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    nbad, e.connect + e.read + e.write + e.timeout, (string.gsub(first, "[\n ]", "_"))))
end
