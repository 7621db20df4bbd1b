extension UIAssets {
    /// The page's body, the same for the served page and the report: the script fills `main`.
    static let body = ##"""
        <header><strong>cassette</strong><nav><a href="#/cassettes" data-view="cassettes">Cassettes</a><a href="#/interactions" data-view="interactions">Interactions</a><a href="#/live" data-view="live">Live</a><a href="#/sessions" data-view="sessions">Sessions</a><a href="#/drift" data-view="drift">Drift</a></nav><span id="source"></span></header>
        <main id="main"><noscript>The cassette UI needs JavaScript.</noscript></main>
        """##
}
