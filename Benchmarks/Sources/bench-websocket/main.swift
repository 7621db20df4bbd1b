import Foundation

// The WebSocket benchmark's peers (Benchmarks/websocket.sh):
//   bench-websocket echo                  a minimal SwiftNIO WebSocket echo server, the baseline;
//                                         prints `listening on http://127.0.0.1:PORT`
//   bench-websocket load URL CONNECTIONS SECONDS TURNS
//                                         CONNECTIONS clients, each sending `message N` and waiting
//                                         for its echo, TURNS times per connection, then a close
//                                         and a new connection, until SECONDS have passed (0:
//                                         one connection of TURNS messages, to record one
//                                         conversation); prints one JSON line of results.

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "echo":
    try await WebSocketEcho.run()
case "load" where arguments.count == 6:
    guard let url = URL(string: arguments[2]), let connections = Int(arguments[3]), let seconds = Double(arguments[4]), let turns = Int(arguments[5])
    else {
        FileHandle.standardError.write(Data("usage: bench-websocket load URL CONNECTIONS SECONDS TURNS\n".utf8))
        exit(2)
    }
    let result = try await WebSocketLoad(url: url, turns: turns).run(connections: connections, seconds: seconds)
    print(result.json)
default:
    FileHandle.standardError.write(Data("usage: bench-websocket echo | load URL CONNECTIONS SECONDS TURNS\n".utf8))
    exit(2)
}
