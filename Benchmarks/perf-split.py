# perf script output (perf record -g at a fixed frequency) on stdin → one line: the samples'
# CPU time per request, split by who owns the innermost frame: the kernel, swift-nio-http2
# (NIOHTTP2/NIOHPACK), NIOHTTP1, cassette's own code, or SwiftNIO's core and the runtime alone
# (a runtime call is charged to the innermost library frame above it).
# Usage: perf script -i DATA | python3 Benchmarks/perf-split.py NAME REQUESTS [HZ]
import re
import sys

name, requests = sys.argv[1], int(sys.argv[2])
hz = float(sys.argv[3]) if len(sys.argv) > 3 else 2000.0
http2 = re.compile(r"NIOHTTP2|NIOHPACK")
http1 = re.compile(r"NIOHTTP1")
ours = re.compile(r"Cassette|WellPlate|cassette")
counts = {"kernel": 0, "swift-nio-http2": 0, "NIOHTTP1": 0, "cassette": 0, "NIO core, runtime": 0}
stack = []


def classify(frames):
    if not frames:
        return
    if "kernel.kallsyms" in frames[0]:
        counts["kernel"] += 1
        return
    for frame in frames:
        if http2.search(frame):
            counts["swift-nio-http2"] += 1
            return
        if http1.search(frame):
            counts["NIOHTTP1"] += 1
            return
        if ours.search(frame) and not re.search(r"NIOCore|NIOPosix|libswift", frame):
            counts["cassette"] += 1
            return
    counts["NIO core, runtime"] += 1


for line in sys.stdin:
    if not line.strip():
        classify(stack)
        stack = []
    elif line[0] in " \t":
        stack.append(line.strip())
classify(stack)
per_request = {k: v / hz / requests * 1e6 for k, v in counts.items()}
user = sum(v for k, v in per_request.items() if k != "kernel")
print(f"{name:10} total {user + per_request['kernel']:5.1f}  kernel {per_request['kernel']:5.1f}  user {user:5.1f}: "
      + ", ".join(f"{k} {v:.1f}" for k, v in per_request.items() if k != "kernel"))
