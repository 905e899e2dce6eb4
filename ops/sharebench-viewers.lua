-- wrk script: every request is a new shopper (its own user agent), so the
-- share page's meter must count each one (no repeat-viewer shortcut).
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("tid", counter)
end
-- ACCEPT_ENCODING (sharebench.sh BROWSER=1): the encodings a browser accepts
local accept = os.getenv("ACCEPT_ENCODING")
local n = 0
function request()
  n = n + 1
  local headers = {
    ["User-Agent"] = "Mozilla/5.0 (Linux; Android 14) Chrome/140.0 Mobile viewer-" .. tid .. "-" .. n,
    -- each shopper from its own address, as behind a trusted proxy
    ["X-Forwarded-For"] = "10." .. tid .. "." .. (math.floor(n / 250) % 250) .. "." .. (n % 250 + 1),
  }
  if accept and accept ~= "" then headers["Accept-Encoding"] = accept end
  return wrk.format("GET", nil, headers)
end
