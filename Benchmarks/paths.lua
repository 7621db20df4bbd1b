-- Cycles through the recorded paths listed in $PATHS_FILE, so every request size is exercised.
local paths = {}
for line in io.lines(os.getenv("PATHS_FILE")) do
    paths[#paths + 1] = line
end
local counter = 0

request = function()
    counter = counter + 1
    return wrk.format("GET", paths[(counter % #paths) + 1])
end
