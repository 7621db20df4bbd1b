"""A GraphQL upstream for the tests: ariadne executes the schema, uvicorn serves it over HTTP.

POST /graphql takes one operation or a batch (a JSON array); GET /graphql takes Apollo's GET form
(query, operationName, and variables/extensions as JSON in query parameters). Automatic persisted
queries as Apollo servers answer them: a hash the server has not seen is answered
PersistedQueryNotFound until a request sends the document with its hash.

Prints "listening on http://127.0.0.1:PORT" once the socket listens (port 0 picks a free one).
With --drift the API has changed in one place: a user's email is null (GetUser selects it;
ListUsers and RenameUser do not).
"""
import asyncio, hashlib, json, socket, sys
from urllib.parse import parse_qs

import uvicorn
from ariadne import MutationType, QueryType, gql, graphql, make_executable_schema

type_defs = gql("""
    type Query {
        user(id: ID!): User
        users(first: Int = 10): [User!]!
        broken: String
    }
    type Mutation {
        renameUser(id: ID!, name: String!, clientMutationId: String): User
    }
    type User {
        id: ID!
        name: String!
        email: String
    }
""")

USERS = {"1": {"id": "1", "name": "Ada", "email": "ada@example.com"},
         "2": {"id": "2", "name": "Grace", "email": "grace@example.com"}}
query = QueryType()
mutation = MutationType()


@query.field("user")
def resolve_user(*_, id):
    return USERS.get(id)


@query.field("users")
def resolve_users(*_, first=10):
    return list(USERS.values())[:first]


@query.field("broken")
def resolve_broken(*_):
    raise ValueError("the broken field always fails")


@mutation.field("renameUser")
def resolve_rename(*_, id, name, clientMutationId=None):
    user = dict(USERS.get(id) or {"id": id, "email": None})
    user["name"] = name
    return user


schema = make_executable_schema(type_defs, query, mutation)
persisted = {}
NOT_FOUND = {"errors": [{"message": "PersistedQueryNotFound", "extensions": {"code": "PERSISTED_QUERY_NOT_FOUND"}}]}


async def execute(operation):
    extensions = operation.get("extensions") or {}
    sha = (extensions.get("persistedQuery") or {}).get("sha256Hash")
    document = operation.get("query")
    if sha and document is None:
        if sha not in persisted:
            return NOT_FOUND
        operation = dict(operation, query=persisted[sha])
    elif sha:
        if hashlib.sha256(document.encode()).hexdigest() != sha:
            return {"errors": [{"message": "provided sha does not match query", "extensions": {"code": "BAD_USER_INPUT"}}]}
        persisted[sha] = document
    _, result = await graphql(schema, operation)
    return result


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    status, answer = 200, None
    if scope["path"] != "/graphql":
        status, answer = 404, {"error": "not_found"}
    elif scope["method"] == "GET":
        params = {name: values[0] for name, values in parse_qs(scope["query_string"].decode()).items()}
        for name in ("variables", "extensions"):
            if name in params:
                params[name] = json.loads(params[name])
        answer = await execute(params)
    else:
        payload = json.loads(body)
        answer = [await execute(op) for op in payload] if isinstance(payload, list) else await execute(payload)
    data = json.dumps(answer).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


def main():
    if "--drift" in sys.argv:
        for user in USERS.values():
            user["email"] = None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print("listening on http://127.0.0.1:%d" % sock.getsockname()[1], flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == "__main__":
    sys.exit(main())
