import CassetteUI
import Testing
import WellPlateCore

struct UIRequestTests {
    @Test func theFilterIsReadFromTheQuery() {
        let request = UIRequest(
            target: "/__cassette/ui/api/interactions?cassette=dev&method=post&status=404&host=api&path=%2Fitems&text=a%20b&operation=GetUser&offset=200",
            root: "/__cassette/ui/")
        #expect(request.path == "api/interactions")
        let query = request.browseQuery
        #expect(query.cassette == "dev")
        #expect(query.method == "post")
        #expect(query.status == 404)
        #expect(query.host == "api")
        #expect(query.path == "/items")
        #expect(query.text == "a b")
        #expect(query.operation == "GetUser")
        #expect(query.offset == 200)
    }

    @Test func emptyValuesFilterNothing() {
        let query = UIRequest(target: "/__cassette/ui/api/interactions?method=&status=&path=&operation=", root: "/__cassette/ui/").browseQuery
        #expect(query == InteractionBrowseQuery())
    }
}
