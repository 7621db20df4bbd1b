-- Cycles through the requests listed in $REQUESTS_FILE, one a line: METHOD, path and body
-- (possibly empty), tab-separated; bodies are sent as application/json.
local requests = {}
for line in io.lines(os.getenv("REQUESTS_FILE")) do
    local method, path, body = line:match("^([^\t]+)\t([^\t]+)\t?(.*)$")
    if method then
        if body == "" then
            requests[#requests + 1] = wrk.format(method, path)
        else
            requests[#requests + 1] = wrk.format(method, path, {["Content-Type"] = "application/json"}, body)
        end
    end
end
local counter = 0

request = function()
    counter = counter + 1
    return requests[(counter % #requests) + 1]
end
