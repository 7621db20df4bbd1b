"""Peers that run several operations on one WebSocket at once, for cassette's tests.

usage: multiplexed_peers.py graphql-server [--drift]
    A strawberry-graphql (PyPI) ASGI app under uvicorn on 127.0.0.1 (an ephemeral port), speaking
    graphql-transport-ws and the legacy graphql-ws. Schema: `hello: String` and
    `countdown(from: Int!): Int` (a subscription that yields from..1, 100 ms apart). Prints
    "listening on http://127.0.0.1:PORT" once it listens; GraphQL at /graphql. With --drift the
    API has changed in one place: Countdown's last value is null.

usage: multiplexed_peers.py graphql-client URL ORDER [PROTOCOL]
    The PyPI `gql` client (WebsocketsTransport) on one socket: subscribes to Countdown from 2 and
    from 3 and runs query Hello, sent in ORDER ("23h": from 2, from 3, Hello; "h32": Hello, from
    3, from 2), each 50 ms after the one before, all running at once. gql numbers its operations
    1, 2, 3 in the order it sends them, so another ORDER means other ids. PROTOCOL is
    graphql-transport-ws (the default) or graphql-ws (strawberry answers queries there with
    "queries are not allowed": leave "h" out). Prints one JSON line per operation in ORDER, in
    the order "2", "3", "hello": {"op": ..., "values": [...]}.

usage: multiplexed_peers.py jsonrpc-server
    A JSON-RPC 2.0 server on the PyPI `websockets` package: "add" answers the sum of its params
    after 30 ms times the first one, each request handled on its own, so answers leave in
    another order than the requests came. Prints "listening on http://127.0.0.1:PORT".

usage: multiplexed_peers.py jsonrpc-client URL ORDER FIRST_ID [SESSION]
    A `websockets` client that sends add([3, 1]), add([1, 2]) and add([2, 10]) in ORDER (a
    permutation of "abc": a is [3, 1], b [1, 2], c [2, 10]) at once, with ids counting from
    FIRST_ID, and waits for every answer, matched by id. Prints {"a": 4, "b": 3, "c": 12} and
    then {"ids": {...the id each call went with}}. With SESSION the handshake carries
    X-Cassette-Session: SESSION.
"""
import asyncio
import json
import socket
import sys


def listener():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def graphql_server(drift):
    import typing

    import strawberry
    import uvicorn
    from strawberry.asgi import GraphQL

    @strawberry.type
    class Query:
        @strawberry.field
        def hello(self) -> str:
            return "world"

    @strawberry.type
    class Subscription:
        @strawberry.subscription
        async def countdown(self, from_: typing.Annotated[int, strawberry.argument(name="from")]) -> typing.AsyncGenerator[typing.Optional[int], None]:
            for n in range(from_, 0, -1):
                yield None if drift and n == 1 else n
                await asyncio.sleep(0.1)

    app = GraphQL(strawberry.Schema(query=Query, subscription=Subscription))
    sock = listener()
    config = uvicorn.Config(app, log_level="warning", lifespan="off", ws="websockets")
    print("listening on http://127.0.0.1:%d" % sock.getsockname()[1], flush=True)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


COUNTDOWN = "subscription Countdown($from: Int!) { countdown(from: $from) }"
HELLO = "query Hello { hello }"


async def graphql_client(url, order, protocol):
    from gql import Client, gql
    from gql.transport.websockets import WebsocketsTransport

    subprotocol = WebsocketsTransport.APOLLO_SUBPROTOCOL if protocol == "graphql-ws" else WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL
    ws_url = url.replace("http://", "ws://").rstrip("/") + "/graphql"
    transport = WebsocketsTransport(url=ws_url, subprotocols=[subprotocol], close_timeout=2)
    results = {}
    async with Client(transport=transport, fetch_schema_from_transport=False) as session:

        async def countdown(start):
            values = []
            async for answer in session.subscribe(gql(COUNTDOWN), variable_values={"from": start}):
                values.append(answer["countdown"])
            results[str(start)] = values

        async def hello():
            results["hello"] = [(await session.execute(gql(HELLO)))["hello"]]

        tasks = []
        for step in order:
            tasks.append(asyncio.create_task(hello() if step == "h" else countdown(int(step))))
            await asyncio.sleep(0.05)
        await asyncio.wait_for(asyncio.gather(*tasks), 20)
    for name in [name for name in ("2", "3", "hello") if name[0] in order]:
        print(json.dumps({"op": name, "values": results.get(name)}), flush=True)


async def jsonrpc_server():
    import websockets

    async def handle(connection):
        async def answer(request):
            await asyncio.sleep(0.03 * request["params"][0])
            await connection.send(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": sum(request["params"])}))

        pending = set()
        async for text in connection:
            task = asyncio.create_task(answer(json.loads(text)))
            pending.add(task)
            task.add_done_callback(pending.discard)
        await asyncio.gather(*pending)

    sock = listener()
    async with websockets.serve(handle, sock=sock):
        print("listening on http://127.0.0.1:%d" % sock.getsockname()[1], flush=True)
        await asyncio.Future()


CALLS = {"a": [3, 1], "b": [1, 2], "c": [2, 10]}


async def jsonrpc_client(url, order, first_id, session):
    import websockets

    ids = {name: first_id + index for index, name in enumerate(order)}
    headers = {"X-Cassette-Session": session} if session else None
    async with websockets.connect(url.replace("http://", "ws://").rstrip("/") + "/rpc", additional_headers=headers) as connection:
        for name in order:
            await connection.send(json.dumps({"jsonrpc": "2.0", "id": ids[name], "method": "add", "params": CALLS[name]}))
        by_id = {}
        while len(by_id) < len(order):
            answer = json.loads(await asyncio.wait_for(connection.recv(), 10))
            by_id[answer["id"]] = answer["result"]
    print(json.dumps({name: by_id[ids[name]] for name in sorted(order)}), flush=True)
    print(json.dumps({"ids": ids}, sort_keys=True), flush=True)


if __name__ == "__main__":
    mode, arguments = sys.argv[1:2], sys.argv[2:]
    if mode == ["graphql-server"] and arguments in ([], ["--drift"]):
        graphql_server(arguments == ["--drift"])
    elif mode == ["graphql-client"] and len(arguments) in (2, 3):
        asyncio.run(graphql_client(arguments[0], arguments[1], arguments[2] if len(arguments) == 3 else "graphql-transport-ws"))
    elif mode == ["jsonrpc-server"]:
        asyncio.run(jsonrpc_server())
    elif mode == ["jsonrpc-client"] and len(arguments) in (3, 4):
        asyncio.run(jsonrpc_client(arguments[0], arguments[1], int(arguments[2]), arguments[3] if len(arguments) == 4 else None))
    else:
        raise SystemExit(__doc__)
