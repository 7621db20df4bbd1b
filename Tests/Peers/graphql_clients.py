"""GraphQL clients against a URL (the cassette proxy in the tests), one JSON line per request:
{"step": ..., "status": ..., "cassette": X-Cassette header or null, "body": ...}.

  graphql_clients.py record URL   what an app does with the upstream up
  graphql_clients.py replay URL   the same operations sent otherwise: reformatted documents,
                                  reordered variables, GET instead of POST, hash only
  graphql_clients.py miss URL     a variable the recordings never had
  graphql_clients.py header-record URL, header-replay URL, header-miss URL
                                  the same, with operations named only by X-APOLLO-OPERATION-NAME
                                  (no operationName in the body or parameters)

Two clients: the PyPI gql client (RequestsHTTPTransport) and requests shaped as Apollo iOS sends
them (POST with operationName/variables/extensions and X-APOLLO-OPERATION-NAME, the automatic
persisted queries hash-then-document retry, GET with JSON in query parameters).
"""
import hashlib, json, sys
from urllib.parse import urlencode

import requests
from gql import Client, gql
from gql.transport.requests import RequestsHTTPTransport

GET_USER = "query GetUser($id: ID!) { user(id: $id) { id name email } }"
GET_USER_REFORMATTED = """
# the same operation, as another editor saved it
query GetUser( $id : ID! ) {
  user( id : $id ) {
    id,
    name
    email
  }
}
"""
LIST_USERS = "query ListUsers($first: Int) { users(first: $first) { id name } }"
RENAME = "mutation RenameUser($id: ID!, $name: String!, $clientMutationId: String) { renameUser(id: $id, name: $name, clientMutationId: $clientMutationId) { id name } }"
BROKEN = "query Broken { broken }"


def emit(step, response):
    try:
        body = response.json()
    except ValueError:
        body = response.text
    print(json.dumps({"step": step, "status": response.status_code,
                      "cassette": response.headers.get("X-Cassette"), "body": body}), flush=True)


def sha(document):
    return hashlib.sha256(document.encode()).hexdigest()


class Apollo:
    """Requests as Apollo iOS shapes them."""

    def __init__(self, url, names_in_body=True):
        self.url = url.rstrip("/") + "/graphql"
        self.session = requests.Session()
        # False: operationName is left out, the header alone names the operation.
        self.names_in_body = names_in_body

    def headers(self, name):
        return {"Content-Type": "application/json", "X-APOLLO-OPERATION-NAME": name,
                "apollographql-client-name": "WellPlate-iOS"}

    def post(self, step, name, document, variables, with_hash=False, hash_only=False, header_name=None):
        body = {"variables": variables}
        if self.names_in_body:
            body["operationName"] = name
        if not hash_only:
            body["query"] = document
        if with_hash or hash_only:
            body["extensions"] = {"persistedQuery": {"version": 1, "sha256Hash": sha(document)}}
        response = self.session.post(self.url, data=json.dumps(body), headers=self.headers(header_name or name))
        emit(step, response)
        return response

    def persisted(self, step, name, document, variables):
        """The APQ flow: the hash alone, then the document with its hash if the server asks."""
        response = self.post(step + ".hash", name, document, variables, hash_only=True)
        errors = response.json().get("errors") or [] if response.status_code == 200 else []
        if any(error.get("message") == "PersistedQueryNotFound" for error in errors):
            response = self.post(step + ".document", name, document, variables, with_hash=True)
        return response

    def get(self, step, name, document, variables, hash_only=False):
        params = {"variables": json.dumps(variables)}
        if self.names_in_body:
            params["operationName"] = name
        if hash_only:
            params["extensions"] = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": sha(document)}})
        else:
            params["query"] = document
        response = self.session.get(self.url + "?" + urlencode(params), headers=self.headers(name))
        emit(step, response)
        return response


def gql_client(url):
    transport = RequestsHTTPTransport(url=url.rstrip("/") + "/graphql", retries=0)
    return Client(transport=transport, fetch_schema_from_transport=False), transport


def gql_step(step, client, transport, document, variables):
    result = client.execute(gql(document), variable_values=variables)
    headers = transport.response_headers or {}
    print(json.dumps({"step": step, "status": 200, "cassette": headers.get("X-Cassette"), "body": {"data": result}}), flush=True)


def record(url):
    client, transport = gql_client(url)
    gql_step("gql.GetUser.1", client, transport, GET_USER, {"id": "1"})
    gql_step("gql.ListUsers", client, transport, LIST_USERS, {"first": 2})
    apollo = Apollo(url)
    apollo.post("apollo.GetUser.2", "GetUser", GET_USER, {"id": "2"})
    apollo.post("apollo.RenameUser", "RenameUser", RENAME, {"id": "1", "name": "Ada L.", "clientMutationId": "m-1"})
    apollo.post("apollo.Broken", "Broken", BROKEN, {})
    apollo.persisted("apollo.apq.ListUsers", "ListUsers", LIST_USERS, {"first": 1})
    apollo.get("apollo.get.GetUser.1", "GetUser", GET_USER, {"id": "1"})


def replay(url):
    client, transport = gql_client(url)
    gql_step("gql.GetUser.1", client, transport, GET_USER, {"id": "1"})
    apollo = Apollo(url)
    apollo.post("reformatted.GetUser.2", "GetUser", GET_USER_REFORMATTED, {"id": "2"})
    apollo.post("reordered.RenameUser", "RenameUser", RENAME, {"name": "Ada L.", "clientMutationId": "m-2", "id": "1"})
    apollo.get("get.ListUsers", "ListUsers", LIST_USERS, {"first": 2})
    apollo.get("get.hash.GetUser.1", "GetUser", GET_USER, {"id": "1"}, hash_only=True)
    apollo.persisted("apq.ListUsers", "ListUsers", LIST_USERS, {"first": 1})
    apollo.persisted("apq.GetUser.2", "GetUser", GET_USER, {"id": "2"})
    apollo.post("Broken", "Broken", BROKEN, {})


def inrun(url):
    """The APQ flow in one recording run, then the same operation by its hash alone, POST and GET."""
    apollo = Apollo(url)
    apollo.persisted("apq.GetUser.1", "GetUser", GET_USER, {"id": "1"})
    apollo.post("again.hash.GetUser.1", "GetUser", GET_USER, {"id": "1"}, hash_only=True)
    apollo.get("again.get.hash.GetUser.1", "GetUser", GET_USER, {"id": "1"}, hash_only=True)


def miss(url):
    Apollo(url).post("changed.GetUser.3", "GetUser", GET_USER, {"id": "3"})


def header_record(url):
    """Apollo's flows with the operation named by X-APOLLO-OPERATION-NAME alone, and one request
    whose header disagrees with its body's operationName (the body names what the server runs)."""
    apollo = Apollo(url, names_in_body=False)
    apollo.persisted("header.apq.GetUser.1", "GetUser", GET_USER, {"id": "1"})
    apollo.persisted("header.apq.ListUsers", "ListUsers", LIST_USERS, {"first": 2})
    Apollo(url).post("disagreeing.ListUsers", "ListUsers", LIST_USERS, {"first": 1}, header_name="GetUser")


def header_replay(url):
    apollo = Apollo(url, names_in_body=False)
    apollo.persisted("header.apq.GetUser.1", "GetUser", GET_USER, {"id": "1"})
    apollo.get("header.get.hash.GetUser.1", "GetUser", GET_USER, {"id": "1"}, hash_only=True)
    apollo.get("header.get.hash.ListUsers", "ListUsers", LIST_USERS, {"first": 2}, hash_only=True)
    Apollo(url).post("disagreeing.ListUsers", "ListUsers", LIST_USERS, {"first": 1}, header_name="GetUser")


def header_miss(url):
    Apollo(url, names_in_body=False).post("header.changed.GetUser.3", "GetUser", GET_USER, {"id": "3"}, hash_only=True)


if __name__ == "__main__":
    modes = {"record": record, "replay": replay, "inrun": inrun, "miss": miss,
             "header-record": header_record, "header-replay": header_replay, "header-miss": header_miss}
    modes[sys.argv[1]](sys.argv[2])
