-- wrk script: every request is a new shopper (its own user agent), so the
-- share page's meter must count each one (no repeat-viewer shortcut).
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end
local n = 0
function request()
  n = n + 1
  return wrk.format("GET", nil, {
    ["User-Agent"] = "Mozilla/5.0 (Linux; Android 14) Chrome/140.0 Mobile viewer-" .. tid .. "-" .. n,
  })
end
